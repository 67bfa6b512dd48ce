"""Config edits change exactly one setting and keep every other byte."""

from __future__ import annotations

import pytest

from nastune.conf import fstab
from nastune.conf import samba as samba_conf
from nastune.tune import edits

SMB = "# lab\n[global]\n   workgroup = LAB\n   AIO Read Size = 0\n\n[data]\n   path = /srv\n"
GANESHA = """# comment
EXPORT {
    Export_Id = 1;
    Path = /srv;
    MaxRead = 8192; # small
    FSAL { Name = VFS; MaxRead = 99; }
}
EXPORT { Export_Id = 2; Path = /other; }
"""


def test_samba_set_replaces_in_place_and_inserts_and_removes():
    out = samba_conf.with_param(SMB, "global", "aio read size", "1")
    assert out == SMB.replace("AIO Read Size = 0", "aio read size = 1")
    added = samba_conf.with_param(SMB, "data", "use sendfile", "yes")
    assert added == SMB.replace("   path = /srv\n", "   path = /srv\n   use sendfile = yes\n")
    assert samba_conf.param(added, "data", "Use Sendfile") == "yes"
    assert samba_conf.with_param(out, "global", "aio read size", None) == SMB.replace("   AIO Read Size = 0\n", "")
    assert samba_conf.with_param(SMB, "new", "x", "1").endswith("\n[new]\n   x = 1\n")


def test_samba_set_keeps_a_crlf_file_crlf():
    crlf = SMB.replace("\n", "\r\n")
    for section, key in (("global", "aio read size"), ("data", "use sendfile"), ("new", "x")):
        out = samba_conf.with_param(crlf, section, key, "1")
        assert out.count("\n") == out.count("\r\n")
        assert samba_conf.param(out, section, key) == "1"
        removed = samba_conf.with_param(out, section, key, None)
        assert removed.count("\n") == removed.count("\r\n")
        assert samba_conf.param(removed, section, key) is None


def test_ganesha_set_touches_only_the_export_and_not_nested_blocks():
    out = edits.ganesha_set(GANESHA, "1", "MaxRead", "1048576")
    assert out == GANESHA.replace("MaxRead = 8192; # small", "MaxRead = 1048576; # small")
    assert edits.ganesha_set(GANESHA, "1", "maxread", None) == GANESHA.replace(
        "    MaxRead = 8192; # small\n", "    # small\n"
    )
    assert edits.ganesha_set(GANESHA, "1", "Path", None) == GANESHA.replace("    Path = /srv;\n", "")
    assert "MaxRead = 99" in out
    assert edits.ganesha_get(out, "1", "maxread") == "1048576"
    added = edits.ganesha_set(GANESHA, "2", "MaxWrite", "65536")
    assert "Path = /other;    MaxWrite = 65536;\n}" in added
    assert edits.ganesha_get(GANESHA, "2", "MaxRead") is None
    with pytest.raises(edits.EditError, match="Export_Id = 7"):
        edits.ganesha_set(GANESHA, "7", "MaxRead", "1")


def test_exports_toggle_sync_async_for_one_client():
    text = "/srv/data  10.0.0.0/24(rw,sync,no_subtree_check) other(ro)\n"
    out = edits.exports_set(text, "/srv/data", "10.0.0.0/24", "async")
    assert out == "/srv/data  10.0.0.0/24(rw,no_subtree_check,async) other(ro)\n"
    with pytest.raises(edits.EditError):
        edits.exports_set(text, "/srv/none", "x", "sync")


def test_fstab_option_set_keeps_layout_and_comments():
    text = "# root\n/dev/sda1  /  ext4  errors=remount-ro  0 1\nnas:/d /mnt/d nfs rw,hard,intr,rsize=8192 0 0 # nfs\n"
    out = edits.fstab_set(text, "/", "noatime", "noatime")
    assert out.splitlines()[1] == "/dev/sda1  /  ext4  errors=remount-ro,noatime  0 1"
    out = edits.fstab_set(text, "/mnt/d", "rsize", "1048576")
    assert out.splitlines()[2] == "nas:/d /mnt/d nfs rw,hard,intr,rsize=1048576 0 0 # nfs"
    out = edits.fstab_set(text, "/mnt/d", "intr", None)
    assert "rw,hard,rsize=8192" in out
    assert fstab.set_option(["rw", "relatime"], "noatime", "noatime") == ["rw", "noatime"]
