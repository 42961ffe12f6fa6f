# mypy: disable-error-code="no-untyped-def"
import hmac
import hashlib
import time

from flask import Flask, request, abort

app = Flask(__name__)
SIGNING_SECRET = b"replace-with-value-from-env"  # nosec B105 - placeholder, overwritten at startup


@app.before_request
def load_secret():
    import os
    global SIGNING_SECRET
    SIGNING_SECRET = os.environ["SLACK_SIGNING_SECRET"].encode()


@app.post("/slack/events")
def events():
    ts = request.headers.get("X-Slack-Request-Timestamp", "0")
    if abs(time.time() - int(ts)) > 300:
        abort(400, "stale request")
    base = f"v0:{ts}:".encode() + request.get_data()
    expected = "v0=" + hmac.new(SIGNING_SECRET, base, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, request.headers.get("X-Slack-Signature", "")):
        abort(401)
    payload = request.get_json()
    if payload.get("type") == "url_verification":
        return {"challenge": payload["challenge"]}
    return "", 204
