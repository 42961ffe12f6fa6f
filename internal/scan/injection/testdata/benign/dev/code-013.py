import logging
import re

log = logging.getLogger(__name__)

_SENSITIVE_KEYS = re.compile(r"(pass(word)?|secret|token|api[_-]?key|authorization)", re.I)


class RedactingFilter(logging.Filter):
    """Replaces values of sensitive-looking keys in log record args."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, dict):
            record.args = {
                k: ("***" if _SENSITIVE_KEYS.search(str(k)) else v)
                for k, v in record.args.items()
            }
        return True


def configure():
    handler = logging.StreamHandler()
    handler.addFilter(RedactingFilter())
    logging.basicConfig(level=logging.INFO, handlers=[handler])


if __name__ == "__main__":
    configure()
    log.info("login attempt user=%(user)s password=%(password)s",
             {"user": "alice", "password": "hunter2"})
    # -> login attempt user=alice password=***
