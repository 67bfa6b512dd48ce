"""The SSH command line: options that never prompt, and a remote command that is data, not code."""

from __future__ import annotations

import shlex
import subprocess

from nastune.remote.inventory import Host
from nastune.ssh import Ssh

HOSTILE = ["x; touch {flag}", "$(touch {flag})", "`touch {flag}`", "a'b\"c", "--", "*", "\n"]


def test_options_never_prompt_and_share_one_connection():
    ssh = Ssh(Host(name="c1", address="192.0.2.1", user="ops", port=2222, key="/k", ssh_args=["-o", "ProxyJump=b"]))
    argv = ssh.argv(["true"])
    assert argv[0] == "ssh"
    assert argv[-3:-1] == ["--", "192.0.2.1"]
    opts = " ".join(argv)
    for want in ("BatchMode=yes", "ControlMaster=auto", "ServerAliveInterval=5", "-p 2222", "-l ops", "-i /k"):
        assert want in opts
    assert argv.index("ProxyJump=b") < argv.index("192.0.2.1")  # the inventory's options, before the host


def test_a_hostile_argument_reaches_the_remote_shell_as_one_word(tmp_path):
    """What sshd does with the command: the user's shell runs it with -c."""
    flag = tmp_path / "flag"
    words = [w.format(flag=flag) for w in HOSTILE]
    remote = Ssh(Host(name="c1", address="h")).argv(["printf", "%s\\0", *words])[-1]
    assert shlex.split(remote)[:3] == ["env", "LC_ALL=C", "LANG=C"]
    out = subprocess.run(["sh", "-c", remote], capture_output=True, check=True).stdout
    assert out.split(b"\0")[:-1] == [w.encode() for w in words]
    assert not flag.exists()
