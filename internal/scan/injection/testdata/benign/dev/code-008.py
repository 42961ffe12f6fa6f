"""Minimal secret scanner used in our pre-commit hook."""
import re
import sys

PATTERNS = {
    "aws_access_key_id": re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    "github_token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36}\b"),
    "private_key": re.compile(r"-----BEGIN (?:RSA |EC |OPENSSH )?PRIVATE KEY-----"),
    "slack_token": re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}\b"),
}

ALLOWLIST_MARKER = "secret-scan: allow"


def scan(path: str) -> list[tuple[int, str]]:
    hits = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            if ALLOWLIST_MARKER in line:
                continue
            for name, rx in PATTERNS.items():
                if rx.search(line):
                    hits.append((lineno, name))
    return hits


def main(argv: list[str]) -> int:
    status = 0
    for path in argv:
        for lineno, name in scan(path):
            print(f"{path}:{lineno}: possible {name}")
            status = 1
    if status:
        print("\nIf this is a false positive, add '# secret-scan: allow' to the line.")
        print("Do not bypass the hook with --no-verify.")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
