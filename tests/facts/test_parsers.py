"""Parsers of the formats the collectors read, on real examples of each."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastune.conf import exports, ganesha, samba
from nastune.facts.interrupts import parse_interrupts
from nastune.facts.mdraid import parse_mdstat
from nastune.facts.mounts import parse_frag, parse_mounts, parse_xfs_info
from nastune.facts.network import ethtool_coalesce, ethtool_rings, softnet

MDSTAT = Path(__file__).parents[1] / "fixtures" / "mdstat"


def arrays(name: str) -> dict[str, dict]:
    return {a["name"]: a for a in parse_mdstat((MDSTAT / f"{name}.txt").read_text())[1]}


def test_mdstat_active_raid5():
    a = arrays("active")["md0"]
    assert (a["state"], a["level"], a["chunk_kb"], a["raid_disks"], a["active_disks"]) == ("active", "raid5", 512, 3, 3)
    assert [m.device for m in a["members"]] == ["sdd1", "sdc1", "sdb1"]
    assert a["metadata"] == "1.2"
    assert a["sync_action"] is None
    assert a["bitmap"].startswith("0/15")


def test_mdstat_inactive_spares():
    a = arrays("inactive")["md2"]
    assert a["state"] == "inactive"
    assert a["level"] is None
    assert all(m.flags == ["spare"] for m in a["members"])


def test_mdstat_degraded_raid10_with_faulty_member():
    a = arrays("degraded")["md1"]
    assert a["level"] == "raid10"
    assert a["chunk_kb"] == 512
    assert a["member_status"] == "UUU_"
    assert [m.flags for m in a["members"] if m.flags] == [["faulty"]]


@pytest.mark.parametrize(
    "name,array,action,percent",
    [
        ("recovery", "md3", "recovery", 22.5),
        ("resync", "md4", "resync", 8.1),
        ("reshape", "md7", "reshape", 1.2),
        ("check", "md8", "check", 35.0),
    ],
)
def test_mdstat_sync_progress(name, array, action, percent):
    a = arrays(name)[array]
    assert (a["sync_action"], a["sync_percent"]) == (action, percent)
    assert a["sync_finish"].endswith("min")
    assert a["sync_speed"].endswith("K/sec")


def test_mdstat_pending_and_delayed_and_auto_read_only():
    found = arrays("resync")
    assert (found["md5"]["read_only"], found["md5"]["sync_pending"]) == ("auto-read-only", "PENDING")
    assert found["md6"]["sync_pending"] == "DELAYED"


def test_mdstat_read_only_linear_and_external_metadata():
    assert arrays("read-only")["md9"]["read_only"] == "read-only"
    assert arrays("linear")["md10"]["level"] == "linear"
    ext = arrays("external")
    assert ext["md126"]["metadata"] == "external:/md127/0"
    assert ext["md127"]["metadata"] == "external:imsm"
    assert arrays("check")["md8"]["members"][0].flags == ["write-mostly"]


def test_mdstat_garbage_member_is_an_error_with_line():
    with pytest.raises(ValueError, match="line 2"):
        parse_mdstat("Personalities : [raid1]\nmd0 : active raid1 sda1[0] ??? sdb1\n")


def test_interrupts_maps_counts_to_cpu_ids_and_names():
    text = (
        "           CPU0       CPU2\n 38:          0        890 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
        " 16:   10   20   IO-APIC  16-fasteoi   ehci_hcd:usb1, ahci[0000:00:1f.2]\nNMI:  0 0  Non-maskable\n"
    )
    cpus, irqs = parse_interrupts(text)
    assert cpus == [0, 2]
    assert irqs[0].counts == {0: 0, 2: 890}
    assert irqs[0].names == ("virtio2-input.0",)
    assert irqs[1].names == ("ehci_hcd:usb1", "ahci[0000:00:1f.2]")


def test_mounts_unescape_spaces():
    m = parse_mounts("/dev/sdb1 /srv/my\\040share xfs rw,noatime 0 0\n")[0]
    assert m.mountpoint == "/srv/my share"
    assert m.option("noatime") == ""
    assert m.option("atime") is None


def test_xfs_info_internal_and_external_log():
    internal = """meta-data=/dev/md0  isize=512    agcount=4, agsize=65536 blks
data     =                       bsize=4096   blocks=262144, imaxpct=25
         =                       sunit=128    swidth=256 blks
log      =internal log           bsize=4096   blocks=2560, version=2
"""
    info = parse_xfs_info(internal)
    assert (info.log, info.log_bytes, info.agcount, info.sunit) == ("internal", 2560 * 4096, 4, 128)
    external = internal.replace("internal log          ", "/dev/loop1            ")
    info = parse_xfs_info(external)
    assert (info.log, info.log_device) == ("external", "/dev/loop1")


def test_xfs_frag_output():
    out = (
        "actual 99813, ideal 1008, fragmentation factor 98.99%\nNote, this number is largely meaningless.\n"
        "Files on this filesystem average 99.02 extents per file\n"
    )
    assert parse_frag(out) == (99813, 1008, 98.99, 99.02)


def test_ethtool_text_outputs():
    c = ethtool_coalesce(
        "Coalesce parameters for eth0:\nAdaptive RX: off  TX: n/a\nrx-usecs: 0\nrx-frames: 1\nrx-usecs-irq: n/a\n"
    )
    assert (c.adaptive_rx, c.adaptive_tx, c.params) == (False, None, {"rx-usecs": 0, "rx-frames": 1})
    r = ethtool_rings(
        "Ring parameters for eth0:\nPre-set maximums:\nRX:\t\t4096\nRX Mini:\tn/a\nTX:\t\t4096\n"
        "Current hardware settings:\nRX:\t\t512\nTX:\t\t512\nTX Push:\toff\n"
    )
    assert r.maximum == {"rx": 4096, "tx": 4096}
    assert r.current == {"rx": 512, "tx": 512}


def test_ganesha_blocks_lists_and_comments():
    parsed = ganesha.parse("""# lab
NFS_CORE_PARAM { Protocols = 3, 4; mount_path_pseudo = true; }
%include "/etc/ganesha/extra.conf"
EXPORT {
    Export_Id = 1;   Path = "/srv/data";
    Pseudo = /data;  MaxRead = 8192; # small
    FSAL { Name = VFS; }
}
""")
    top = parsed.top
    assert parsed.includes == [(3, "/etc/ganesha/extra.conf")]
    assert not parsed.errors
    export = top.children("export")[0]
    assert export.first("path") == "/srv/data"
    assert export.first("MAXREAD") == "8192"
    assert export.children("FSAL")[0].first("name") == "VFS"
    assert top.children("NFS_CORE_PARAM")[0].get("protocols") == ["3", "4"]


@pytest.mark.parametrize(
    "text,line", [("EXPORT {\n Path = /x;\n", 1), ("}\n", 1), ("A = 1;\nB {\n C = {;\n}\n}", 3), ('A = "x;\n', 1)]
)
def test_ganesha_syntax_errors_name_the_line(text, line):
    errors = ganesha.parse(text).errors
    assert errors
    assert errors[0].line == line
    with pytest.raises(ganesha.GaneshaSyntaxError):
        ganesha.check(text)


def test_one_bad_ganesha_block_loses_only_itself():
    """Seen in real files: a typo (`Export_Id - 0;`) and a placeholder value; %url in Ceph's."""
    parsed = ganesha.parse(
        "%url rados://nfs-ganesha/ns/conf-nfs.a\n"
        "EXPORT { Export_Id - 0; Path = /b; }\n"
        "EXPORT { Export_Id = 3; Path = /c; FSAL { Name = CEPH; } }\n"
        "NFS_CORE_PARAM { Protocols = 4; }\n"
    )
    assert parsed.urls == [(1, "rados://nfs-ganesha/ns/conf-nfs.a")]
    (error,) = parsed.errors
    assert error.line == 2
    assert "Export_Id" in str(error)
    assert "EXPORT block from line 2 is left out" in str(error)
    assert [b.first("path") for b in parsed.top.children("export")] == ["/c"]
    assert parsed.top.children("nfs_core_param")[0].get("protocols") == ["4"]


def test_an_edit_may_not_break_a_readable_block_but_may_keep_a_broken_one():
    broken = "EXPORT { Export_Id - 0; }\nEXPORT { Export_Id = 2; MaxRead = 8192; }\n"
    ganesha.check(broken.replace("8192", "1048576"), broken)  # the old error stays: allowed
    with pytest.raises(ganesha.GaneshaSyntaxError):
        ganesha.check(broken.replace("8192;", "= 1;"), broken)


def test_samba_names_are_normalised_and_continuations_joined():
    conf = samba.parse(
        "[global]\n  AIO   Read Size = 0\n  socket options = TCP_NODELAY \\\n    SO_RCVBUF=8192\n; c\n[Data]\npath=/srv\n"
    )
    assert conf["global"]["aio read size"] == "0"
    assert conf["global"]["socket options"] == "TCP_NODELAY SO_RCVBUF=8192"
    assert conf["data"]["path"] == "/srv"
    with pytest.raises(ValueError, match="line 2"):
        samba.parse("[global]\nnot a parameter\n")


def test_exports_defaults_continuations_and_quotes():
    found = exports.parse(
        '"/srv/my data" -rw,sync a(ro) \\\n  b\n/srv/x *(async,no_root_squash)\n/srv/y\n', "/etc/exports"
    )
    assert found[0].path == "/srv/my data"
    assert found[0].line == 1
    assert [(c.host, c.options) for c in found[0].clients] == [("a", ["rw", "sync", "ro"]), ("b", ["rw", "sync"])]
    assert found[1].has("async")
    assert found[1].line == 3
    assert found[2].clients[0].host == "*"


def test_htb_class_rate_from_tc_text():
    from nastune.facts.network import htb_class_rate

    text = (
        "class htb 1:1 root rate 2Gbit ceil 2Gbit burst 1375b cburst 1375b\n"
        "class htb 1:10 parent 1:1 prio 0 rate 900Mbit ceil 900Mbit burst 1462b cburst 1462b\n"
    )
    assert htb_class_rate(text, "1:10") == 900_000_000
    assert htb_class_rate(text, "1:1") == 2_000_000_000
    assert htb_class_rate(text, "1:2") is None
    assert htb_class_rate("", "1:10") is None


def test_softnet_stat_counts_per_cpu_named_by_its_column_or_its_line():
    # Linux 6.1 (13 columns, the CPU's number last; CPU 1 offline) and Linux 4.19 (11 columns)
    new = "000bb344 00000471 00000002 0 0 0 0 0 0 0 0 00000000 00000000\n0001e240 0 0 0 0 0 0 0 0 0 0 0 00000002\n"
    assert [(c.cpu, c.processed, c.dropped, c.time_squeeze) for c in softnet(new)] == [
        (0, 766788, 1137, 2),
        (2, 123456, 0, 0),
    ]
    assert [c.cpu for c in softnet("00000010 0 0 0 0 0 0 0 0 0 0\n00000020 0 0 0 0 0 0 0 0 0 0\n")] == [0, 1]
    with pytest.raises(ValueError, match="line 1: not hexadecimal"):
        softnet("zz 0 0\n")
