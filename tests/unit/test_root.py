"""The root-bound file API: chroot-style resolution, replay, and untrusted trees."""

from __future__ import annotations

import json
import os

import pytest

from nastune.recorder import redact
from nastune.root import META, Root, Unavailable, command_key


def test_reads_file_through_relative_links_inside_root(tree):
    tree("sys/devices/pci0000:00/0000:00:03.0/net/eth0/mtu", "9000\n")
    os.makedirs(tree.root / "sys/class/net")
    os.symlink("../../devices/pci0000:00/0000:00:03.0/net/eth0", tree.root / "sys/class/net/eth0")
    root = Root(tree.root)
    assert root.read("/sys/class/net/eth0/mtu") == "9000\n"
    assert root.canonical("/sys/class/net/eth0/mtu") == "/sys/devices/pci0000:00/0000:00:03.0/net/eth0/mtu"


def test_absolute_link_is_resolved_inside_root_not_on_host(tree, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret"
    outside.write_text("host secret")
    tree("proc/placeholder")
    os.symlink(str(outside), tree.root / "proc/mdstat")
    root = Root(tree.root)
    with pytest.raises(Unavailable) as e:
        root.read("/proc/mdstat")
    assert e.value.reason == "missing"
    # the same absolute target, created inside the root, is what the link means there
    tree(str(outside), "inside copy")
    assert root.read("/proc/mdstat") == "inside copy"


def test_dotdot_links_stop_at_root(tree, tmp_path_factory):
    tree("etc/placeholder")
    os.symlink("../../../../../../../etc/passwd", tree.root / "etc/fstab")
    root = Root(tree.root)
    assert root.canonical("/etc/fstab") == "/etc/passwd"
    with pytest.raises(Unavailable):
        root.read("/etc/fstab")  # the host's /etc/passwd is never read
    assert root.canonical("/../../etc/x") == "/etc/x"


def test_link_loop_is_an_error_not_a_hang(tree):
    tree("a/placeholder")
    os.symlink("b", tree.root / "a/c")
    os.symlink("c", tree.root / "a/b")
    with pytest.raises(Unavailable) as e:
        Root(tree.root).read("/a/c")
    assert "symbolic links" in e.value.reason


def test_fifo_and_directories_are_not_read(tree):
    tree("proc/placeholder")
    os.mkfifo(tree.root / "proc/mdstat")
    root = Root(tree.root)
    with pytest.raises(Unavailable) as e:
        root.read("/proc/mdstat")
    assert e.value.reason == "not a regular file"
    with pytest.raises(Unavailable):
        root.read("/proc")


def test_commands_are_replayed_never_run_on_a_tree(tree):
    argv = ["ethtool", "-g", "eth0"]
    tree(
        f"{META}/commands/{command_key(argv)}",
        json.dumps({"argv": argv, "returncode": 0, "stdout": "Ring parameters", "stderr": ""}),
    )
    root = Root(tree.root)
    assert root.run(argv).stdout == "Ring parameters"
    missing = root.run(["ethtool", "-k", "eth0"])
    assert not missing.ok
    assert missing.error == "not recorded in this snapshot"


def test_live_missing_tool_names_the_debian_package():
    result = Root("/").run(["zpool", "list"]) if not os.path.exists("/usr/sbin/zpool") else None
    if result is None:
        pytest.skip("zpool is installed here")
    assert result.error == "zpool not found (apt-get install zfsutils-linux)"


def test_root_must_be_a_directory(tmp_path):
    with pytest.raises(Unavailable):
        Root(tmp_path / "nope")


def test_redact_removes_secret_values_but_keeps_parameters_that_only_mention_them():
    text = (
        "[global]\n   ldap admin password = hunter2\n   check password script = /bin/x\n"
        "//srv/s /mnt cifs username=u,password=s3cret,uid=0 0 0\n"
    )
    out = redact(text)
    assert "hunter2" not in out
    assert "s3cret" not in out
    assert "check password script = /bin/x" in out
    assert "username=u,password=<redacted>,uid=0" in out
