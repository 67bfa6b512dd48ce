"""FTP's big directory is made, searched and removed in one curl session each: its thousands of
commands, like the login, go on curl's standard input, where neither `ps` nor an SSH command
line's length limit reaches them."""

from __future__ import annotations

from nastune.login import make
from nastune.protocols.ftp import _curl


def test_commands_and_the_login_go_on_curl_s_standard_input():
    login = make("nastune", "s3cret-pw", None, "test")
    commands = [f"-*DELE nastune-dir-1/f-{i}" for i in range(50_000)] + ["-RMD nastune-dir-1"]
    call = _curl(["-sS", "-o", "/dev/null", "ftp://nas/pub/"], login, commands)
    assert call.argv == ["curl", "-K", "-", "-sS", "-o", "/dev/null", "ftp://nas/pub/"]
    assert call.input is not None and "s3cret-pw" in call.input
    lines = call.input.splitlines()
    assert lines[1:] == [f'quote = "{c}"' for c in commands]  # in order: the directory goes last


def test_anonymous_with_commands_still_reads_them_from_standard_input():
    call = _curl(["ftp://nas/pub/"], None, ["+*SIZE missing-0"])
    assert call.argv[:3] == ["curl", "-K", "-"] and call.input == 'quote = "+*SIZE missing-0"\n'
    assert _curl(["ftp://nas/pub/"], None).input is None  # nothing to send: no -K
