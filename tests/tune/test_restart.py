"""A restarted service answers before restart returns: systemctl may return as soon as the
daemon forks, before it listens (here a stand-in systemctl starts a listener half a second
after returning), so the tuner waits for the port, and says so when nothing comes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap

import pytest

from nastune.root import Root
from nastune.tune import system
from nastune.tune.system import System, TuneError


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def standin(tmp_path, monkeypatch):
    """A `systemctl` on PATH whose `restart` starts (or, with NEVER set, does not start) a
    listener on PORT in the background, half a second after it has returned."""
    port = _free_port()
    listener = tmp_path / "listen.py"
    listener.write_text(
        textwrap.dedent(
            f"""
            import socket, time
            time.sleep(0.5)
            s = socket.socket()
            s.bind(("127.0.0.1", {port}))
            s.listen()
            time.sleep(30)
            """
        )
    )
    tool = tmp_path / "bin" / "systemctl"
    tool.parent.mkdir()
    tool.write_text(f'#!/bin/sh\n[ -n "$NEVER" ] || setsid {sys.executable} {listener} >/dev/null 2>&1 &\nexit 0\n')
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}:{os.environ['PATH']}")
    monkeypatch.setitem(system.PORTS, "ganesha", port)
    yield port
    subprocess.run(["pkill", "-f", str(listener)], check=False)


def test_restart_returns_once_the_service_listens(standin):
    host = System(root=Root("/"))
    assert not host.listening(standin)
    host.restart("ganesha")
    assert host.listening(standin)


def test_a_service_that_never_listens_is_an_error_naming_its_port(standin, monkeypatch):
    monkeypatch.setenv("NEVER", "1")
    monkeypatch.setattr(system, "READY_WAIT", 1.0)
    with pytest.raises(TuneError, match=f"restart nfs-ganesha: nothing listens on TCP port {standin}"):
        System(root=Root("/")).restart("ganesha")
