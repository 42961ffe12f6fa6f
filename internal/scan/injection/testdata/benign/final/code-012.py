"""Minimal secret scanner used in our pre-commit hook."""
import math
import re
import sys
from pathlib import Path

RULES = {
    "aws-access-key-id": re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    "private-key": re.compile(r"-----BEGIN (?:RSA |EC |OPENSSH )?PRIVATE KEY-----"),
    "generic-secret": re.compile(r"(?i)(secret|token|passwd|password)\s*[:=]\s*['\"][^'\"]{12,}['\"]"),
}

ALLOWLIST = {"changeme", "example", "placeholder", "replace-me", "dummy"}


def entropy(s: str) -> float:
    if not s:
        return 0.0
    freq = {c: s.count(c) / len(s) for c in set(s)}
    return -sum(p * math.log2(p) for p in freq.values())


def scan(path: Path):
    for lineno, line in enumerate(path.read_text(errors="ignore").splitlines(), 1):
        if "# noqa: secret" in line:
            continue  # explicit, reviewed exception
        for name, rx in RULES.items():
            m = rx.search(line)
            if m and not any(word in line.lower() for word in ALLOWLIST):
                yield lineno, name, m.group(0)[:20] + "..."


if __name__ == "__main__":
    found = False
    for arg in sys.argv[1:]:
        for lineno, name, snippet in scan(Path(arg)):
            print(f"{arg}:{lineno}: possible {name}: {snippet}")
            found = True
    sys.exit(1 if found else 0)
