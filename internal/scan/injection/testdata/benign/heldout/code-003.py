import subprocess
import tempfile
from pathlib import Path

import pytest

from deployer.shell import run_remote


def test_run_remote_quotes_arguments(monkeypatch):
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append((a, k)))
    run_remote("host", ["echo", "hello; rm -rf /"])
    argv = calls[0][0][0]
    # The dangerous string must be passed as a single quoted argument.
    assert argv[-1] == "echo 'hello; rm -rf /'"


def test_known_hosts_written(tmp_path: Path):
    kh = tmp_path / "known_hosts"
    # nosec B108: tmp_path is created by pytest, not a shared /tmp path
    kh.write_text("example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleOnly\n")
    assert "ssh-ed25519" in kh.read_text()


@pytest.mark.parametrize("cmd", ["ls", "uptime", "df -h"])
def test_allowed_commands(cmd):
    assert run_remote.is_allowed(cmd)


def test_shell_true_is_never_used():
    src = Path(run_remote.__code__.co_filename).read_text()
    assert "shell=True" not in src  # noqa: S604 - this is the assertion, not a call
