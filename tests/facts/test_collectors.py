"""Collectors on hostile input: an empty root, malformed files, and secrets in a capture."""

from __future__ import annotations

import pytest

from nastune.facts import AREAS, collect, expand
from nastune.root import Root
from tests.conftest import need


def test_every_collector_survives_an_empty_root(tmp_path):
    facts = collect(Root(tmp_path), AREAS)
    assert need(facts.system).kernel.unknown == "missing"
    assert need(need(facts.md).personalities.unknown).startswith("no md driver")
    assert need(facts.network).interfaces == []
    assert need(facts.block).devices == []
    assert need(facts.smb).config.unknown == "missing"
    assert need(facts.zfs).pools.unknown == "not recorded in this snapshot"
    assert need(facts.sysctl).get("fs.xfs.xfsbufd_centisecs").unknown == "absent on this kernel"
    assert need(facts.kernel_log).page_allocation_failures.known is False
    assert facts.warnings == []


MALFORMED = [
    ("/proc/mdstat", "Personalities : [raid1]\nmd0 : active raid1 sda1[0] ~~~ \n", "md", "/proc/mdstat"),
    ("/proc/meminfo", "MemTotal: lots\n", "system", "/proc/meminfo"),
    ("/proc/mounts", "onlytwo fields\n", "mounts", "/proc/mounts"),
    ("/etc/fstab", "/dev/sda1 /\n", "mounts", "/etc/fstab"),
    ("/etc/exports", '"/srv/unterminated quote\n', "nfs_server", "/etc/exports"),
    ("/etc/ganesha/ganesha.conf", "EXPORT {\n Path = /x;\n", "nfs_server", "/etc/ganesha/ganesha.conf"),
    ("/etc/samba/smb.conf", "[global\nfoo\n", "smb", "/etc/samba/smb.conf"),
    ("/proc/fs/nfsd/threads", "eight\n", "nfs_server", "/proc/fs/nfsd/threads"),
    (
        "/proc/self/mountstats",
        "device a mounted on /m with fstype nfs statvers=1.1\n\tper-op statistics\n\tREAD: x y\n",
        "nfs_client",
        "/proc/self/mountstats",
    ),
    ("/sys/devices/system/cpu/online", "0-x\n", "system", "/sys/devices/system/cpu/online"),
    ("/proc/interrupts", "no header here\n", "network", "/proc/interrupts"),
]


@pytest.mark.parametrize("path,text,area,source", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_file_gives_a_warning_naming_it(tree, path, text, area, source):
    tree(path, text)
    facts = collect(Root(tree.root), [area])
    assert any(w.source == source for w in facts.warnings), facts.warnings


def test_malformed_fstab_line_is_reported_with_its_number(tree):
    tree("/etc/fstab", "# comment\n/dev/sda1 / ext4 defaults 0 1\nbroken\n")
    facts = collect(Root(tree.root), ["mounts"])
    assert [(w.source, w.line) for w in facts.warnings] == [("/etc/fstab", 3)]
    assert [e.file for e in need(need(facts.mounts).fstab.value)] == ["/"]


def test_unknown_area_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="unknown area 'disks'; choose from system"):
        expand(["disks"])
    assert expand(["storage", "system"]) == ["system", "block", "md", "mounts", "zfs"]


def test_ganesha_includes_are_followed_under_the_root_and_other_sources_recorded(tree):
    main = "/etc/ganesha/ganesha.conf"
    tree(
        main,
        '%url rados://nfs-ganesha/ns/conf\n%include "exports.d/a.conf"\n%include "/etc/ganesha/gone.conf"\n'
        "EXPORT { Export_Id = UPDATE-ME; Path = /main; }\nNFS_CORE_PARAM { Protocols = 4; }\n",
    )
    tree(
        "/etc/ganesha/exports.d/a.conf",
        "EXPORT { Export_Id - 0; Path = /bad; }\nEXPORT { Export_Id = 7; Path = /inc; }\n",
    )
    facts = collect(Root(tree.root), ["nfs_server"])
    assert facts.nfs_server is not None
    g = need(facts.nfs_server.ganesha.value)
    assert [(e.path, e.export_id, e.file, e.protocols) for e in g.exports] == [
        ("/inc", 7, "/etc/ganesha/exports.d/a.conf", ["4"]),  # included where the %include stands
        ("/main", None, main, ["4"]),
    ]
    assert g.files == [main, "/etc/ganesha/exports.d/a.conf"]
    assert [x.split(" ")[0] for x in g.external] == ["rados://nfs-ganesha/ns/conf", "/etc/ganesha/gone.conf"]
    assert len(g.errors) == 2
    assert "a.conf line 1:" in g.errors[0]
    assert "UPDATE-ME" in g.errors[1]
    assert sum(w.source == main for w in facts.warnings) == 2


def test_the_boot_time_sysctl_files_are_read_in_their_order_and_bad_lines_named(tree):
    tree("/proc/sys/vm/dirty_ratio", "20\n")
    tree("/proc/sys/vm/dirty_background_ratio", "10\n")
    tree("/usr/lib/sysctl.d/50-default.conf", "vm.dirty_ratio = 10\n")
    tree("/etc/sysctl.d/50-default.conf", "vm.dirty_ratio = 15\n")  # hides /usr/lib's file of that name
    tree("/etc/sysctl.d/60-nas.conf", "vm/dirty_background_ratio = 5\nnet.core.rmem_max 4194304\n")
    tree("/etc/sysctl.conf", "# ours\nvm.dirty_ratio = 30 # was 20\n")
    facts = collect(Root(tree.root), ["sysctl"])
    s = need(facts.sysctl)
    assert s.boot["vm.dirty_ratio"].file == "/etc/sysctl.conf"
    assert s.boot["vm.dirty_ratio"].line == 2
    assert s.boot["vm.dirty_background_ratio"].value == "5"
    assert [p.split(": ")[0] for p in s.boot_problems] == [
        "/etc/sysctl.d/60-nas.conf line 2",
        "/etc/sysctl.conf line 2",
    ]


def test_ganesha_dir_reads_every_matching_file_of_a_directory_in_name_order(tree):
    main = "/etc/ganesha/ganesha.conf"
    tree(main, '%dir "/etc/ganesha/exports.d/*.conf"\n%dir /etc/ganesha/empty\nEXPORT { Export_Id = 1; Path = /a; }\n')
    tree("/etc/ganesha/exports.d/20-b.conf", "EXPORT { Export_Id = 3; Path = /c; }\n")
    tree("/etc/ganesha/exports.d/10-a.conf", "EXPORT { Export_Id = 2; Path = /b; }\n")
    tree("/etc/ganesha/exports.d/notes.txt", "EXPORT { Export_Id = 9; Path = /no; }\n")
    (tree.root / "etc/ganesha/empty").mkdir()
    g = need(need(collect(Root(tree.root), ["nfs_server"]).nfs_server).ganesha.value)
    assert [e.path for e in g.exports] == ["/b", "/c", "/a"]  # the included files stand where %dir is
    assert g.files == [main, "/etc/ganesha/exports.d/10-a.conf", "/etc/ganesha/exports.d/20-b.conf"]
    assert g.external == ["/etc/ganesha/empty (%dir, /etc/ganesha/ganesha.conf line 2: no file there)"]


def test_ganesha_sec_type_and_access_come_from_the_export_or_export_defaults(tree):
    tree(
        "/etc/ganesha/ganesha.conf",
        "EXPORT_DEFAULTS { SecType = krb5p, sys; Access_Type = RO; }\n"
        "EXPORT { Export_Id = 1; Path = /a; }\nEXPORT { Export_Id = 2; Path = /b; SecType = sys; Access_Type = RW; }\n",
    )
    facts = collect(Root(tree.root), ["nfs_server"])
    g = need(need(facts.nfs_server).ganesha.value)
    assert [(e.sec_type, e.access_type) for e in g.exports] == [(["krb5p", "sys"], "RO"), (["sys"], "RW")]
    from nastune import rules

    found = rules.evaluate(facts, only=["nfs-export-krb5-integrity"])
    assert [f.target for f in found] == ["ganesha export 1"]
    assert "encrypts every RPC" in found[0].message
