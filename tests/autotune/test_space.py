"""The search space on captured systems: what it finds, what it refuses (values outside a
tunable's domain, contradictory combinations, unknown names), and the plans it makes."""

from __future__ import annotations

import pytest

from nastune import rules as knowledge
from nastune.autotune.space import TUNABLES, SpaceError, build
from nastune.facts import Facts, collect
from nastune.root import Root
from nastune.rules import query
from nastune.tune.plan import Plan, PlannedChange, from_findings
from tests.conftest import extracted


@pytest.fixture(scope="module")
def soho(tmp_path_factory) -> Facts:
    return collect(Root(str(extracted("lab-soho", tmp_path_factory.mktemp("soho")))))


def test_the_soho_space_holds_what_its_facts_show(soho):
    space, left = build(soho, None, shared_kernel=False, accept_risk=frozenset({"durability"}))
    assert space.current() == {
        "nfs-transfer-size": 8192,
        "tcp-buffer-max": 65536,
        "smb-socket-buffers": "64k",
        "smb-aio": "off",
        "smb-sendfile": "no",
        "atime": "strictatime",
        "mtu": 1500,
        "dirty-ratio": 20,
        "dirty-background-ratio": 10,
        "read-ahead": 2560,  # the data device, loop0: between two of the powers of two searched
        "tcp-notsent-lowat": 4294967295,  # the kernel's default: no limit
    }
    assert left == [f"{name}: not on this system" for name in ("nfsd-threads", "zfs-arc-max", "zfs-recordsize")]


def _facts(name: str, tmp_path_factory) -> Facts:
    return collect(Root(str(extracted(name, tmp_path_factory.mktemp(name)))))


def test_the_kernel_nfs_server_s_threads_are_searched_where_a_count_is_set(tmp_path_factory):
    space, _ = build(_facts("small-nas-raid5", tmp_path_factory), ["nfsd-threads"], False, frozenset())
    assert space.current() == {"nfsd-threads": 8}
    (change,) = space.plan({"nfsd-threads": 32}).changes
    assert (change.knob, change.target, change.new) == ("nfsd_threads", "nfsd", 32)
    assert space.check({"nfsd-threads": 1000}) == ["nfsd-threads: 1000 is not a power of two from 4 to 512 threads"]


def test_a_zfs_nas_s_arc_and_its_data_datasets_recordsize_are_searched(tmp_path_factory):
    """The ARC's ceiling in force (zfs_arc_max 0: half the RAM here) and the recordsize of the
    dataset that holds the data (tank/vm; not the pool's root, which only passes it on)."""
    space, _ = build(_facts("zfs-vm-store", tmp_path_factory), ["zfs-arc-max", "zfs-recordsize"], False, frozenset())
    assert space.current() == {"zfs-arc-max": 4172800000, "zfs-recordsize": 128 * 1024}
    arc, record = space.plan({"zfs-arc-max": 4 << 30, "zfs-recordsize": 1 << 20}).changes
    assert (arc.knob, arc.target, arc.new) == ("sysfs", "/sys/module/zfs/parameters/zfs_arc_max", 4 << 30)
    assert (record.knob, record.target, record.key, record.new) == ("zfs_property", "tank/vm", "recordsize", "1024K")
    assert space.check({"zfs-arc-max": 8 << 30}) == [
        "zfs-arc-max 8 GiB: leaves less than 2 GiB of 7.8 GiB of RAM to the rest"
    ]


def test_a_current_value_between_the_domain_s_steps_is_kept_and_searched_around(soho):
    """loop0 reads ahead 2560 KiB, as md arrays set theirs from the stripe: the search keeps it as
    the base, and the sampler's model places it at the nearest power of two."""
    space, _ = build(soho, ["read-ahead"], shared_kernel=True, accept_risk=frozenset())
    assert space.params(space.current()) == {"read-ahead": 11}  # 2048 = 2**11 stands for it
    assert space.check({"read-ahead": 2560}) == []
    assert space.plan(space.current()).changes == []
    assert space.check({"read-ahead": 3000}) == ["read-ahead: 3000 is not a power of two from 128 to 16384 KiB"]
    (change,) = space.plan({"read-ahead": 4096}).changes
    assert (change.knob, change.target, change.new) == ("sysfs", "/sys/block/loop0/queue/read_ahead_kb", 4096)
    domain = space.bound["read-ahead"].tunable.domain
    assert (domain.nearest(3500), domain.nearest(64), domain.nearest(32768)) == (4096, None, None)  # outside: left out


def test_the_data_tunables_act_on_the_served_file_system_alone(soho):
    # this capture's root file system is ext4, and /run/netns a bind mount of it: both are local
    # data file systems, and the first search remounted them, and set the root disk's read-ahead
    assert [m.mountpoint for m in query.data_mounts(soho)] == ["/", "/run/netns", "/var/lib/nastune/lab/mnt"]
    assert [m.mountpoint for m in query.served_mounts(soho)] == ["/var/lib/nastune/lab/mnt"]
    space, _ = build(soho, ["atime"], shared_kernel=True, accept_risk=frozenset())
    assert space.bound["atime"].targets == ("/var/lib/nastune/lab/mnt",)
    plan = space.plan({"atime": "noatime"})
    assert [(c.knob, c.target) for c in plan.changes] == [("mount_option", "/var/lib/nastune/lab/mnt")]


def test_with_no_shared_directory_known_every_data_mount_counts(soho):
    data = soho.model_dump(mode="json")
    data["smb"] = data["nfs_server"] = None
    bare = Facts.model_validate(data)
    assert query.served_paths(bare) == []
    assert query.served_mounts(bare) == query.data_mounts(bare)


def test_durability_and_machine_wide_tunables_need_their_opt_in(soho):
    space, left = build(soho, None, shared_kernel=True, accept_risk=frozenset())
    assert "dirty-ratio" not in space.bound
    assert "dirty-background-ratio" not in space.bound
    assert any(line.startswith("dirty-ratio: trades durability") for line in left)
    with pytest.raises(SpaceError, match="machine-wide"):
        build(soho, ["dirty-ratio"], shared_kernel=True, accept_risk=frozenset({"durability"}))
    with pytest.raises(SpaceError, match="unknown tunable 'nfs-wsize'"):
        build(soho, ["nfs-wsize"], shared_kernel=False, accept_risk=frozenset())


@pytest.mark.parametrize(
    "config, refusal",
    [
        ({"nfs-transfer-size": 12345}, "nfs-transfer-size: 12345 is not a power of two from 8192 to 1048576 bytes"),
        ({"nfs-transfer-size": 1 << 21}, "is not a power of two from 8192 to 1048576"),
        ({"tcp-buffer-max": "big"}, "tcp-buffer-max: 'big' is not a whole number"),
        ({"mtu": 4000}, "mtu: 4000 is not one of 1500, 9000"),
        ({"dirty-ratio": 7}, "dirty-ratio: 7 is not one of 5..60 in steps of 5"),
        ({"dirty-ratio": 10, "dirty-background-ratio": 10}, "must be below dirty-ratio 10"),
        ({"dirty-ratio": 5}, "dirty-background-ratio 10 must be below dirty-ratio 5"),  # against the current one
        ({"raid-chunk": 64}, "raid-chunk: not a tunable of this search"),
    ],
)
def test_out_of_range_and_contradictory_configurations_are_refused(soho, config, refusal):
    space, _ = build(soho, None, shared_kernel=False, accept_risk=frozenset({"durability"}))
    assert any(refusal in why for why in space.check(config)), space.check(config)
    with pytest.raises(SpaceError):
        space.plan(config)


def test_tcp_buffers_are_bounded_by_ram(soho):
    space, _ = build(soho, ["tcp-buffer-max"], shared_kernel=False, accept_risk=frozenset())
    data = soho.model_dump(mode="json")
    data["system"]["memory_bytes"]["value"] = 512 << 20  # 32 connections at 64 MiB would not fit in a quarter
    small = Facts.model_validate(data)
    tight, _ = build(small, ["tcp-buffer-max"], shared_kernel=False, accept_risk=frozenset())
    assert space.check({"tcp-buffer-max": 1 << 26}) == []
    assert "a quarter of 512 MiB of RAM (at most 4194304)" in tight.check({"tcp-buffer-max": 1 << 26})[0]


def test_a_configuration_plans_only_what_it_moves_and_keeps_transfer_sizes_equal(soho):
    space, _ = build(soho, None, shared_kernel=False, accept_risk=frozenset({"durability"}))
    plan = space.plan({**space.current(), "nfs-transfer-size": 1 << 20, "smb-aio": "off"})
    assert [(c.knob, c.key, c.new) for c in plan.changes] == [
        ("ganesha_export", key, 1 << 20) for key in ("MaxRead", "MaxWrite", "PrefRead", "PrefWrite")
    ]
    assert [c.id for c in plan.changes] == [1, 2, 3, 4]
    assert plan.changes[0].rule == "autotune:nfs-transfer-size"
    assert space.plan(space.current()).changes == []


def test_the_rule_based_plan_is_a_point_of_the_space(soho):
    space, _ = build(soho, None, shared_kernel=False, accept_risk=frozenset({"durability"}))
    rule = space.of_plan(from_findings(knowledge.evaluate(soho)))
    assert rule["nfs-transfer-size"] == 1 << 20
    assert rule["smb-aio"] == "on"
    assert rule["smb-socket-buffers"] == "auto"
    assert rule["tcp-buffer-max"] == 8 << 20  # the rule asks for 6 MiB: the next power of two meets it
    assert space.check(rule) == []


def test_a_configuration_names_the_durability_trades_it_makes(soho):
    space, _ = build(soho, None, shared_kernel=False, accept_risk=frozenset({"durability"}))
    assert space.trades(space.current()) == []
    assert space.trades({**space.current(), "nfs-transfer-size": 1 << 20, "dirty-ratio": 40}) == [
        "dirty-ratio 20 -> 40"
    ]


def test_every_tunable_has_a_doc_and_a_domain_that_its_values_pass():
    for name, t in TUNABLES.items():
        assert t.name == name
        assert t.doc
        values = t.domain.values()
        assert len(values) >= 2, name
        assert all(t.domain.check(v) is None for v in values), name


def test_the_unsent_data_a_socket_may_queue_is_searched_from_no_limit_down(soho):
    space, _ = build(soho, ["tcp-notsent-lowat"], shared_kernel=True, accept_risk=frozenset())
    (change,) = space.plan({"tcp-notsent-lowat": 131072}).changes
    assert (change.knob, change.target, change.new) == ("sysctl", "net.ipv4.tcp_notsent_lowat", 131072)
    rule = PlannedChange(id=1, rule="tcp-notsent-lowat", knob="sysctl", target=change.target, new=131072)
    assert space.of_plan(Plan(changes=[rule])) == {"tcp-notsent-lowat": 131072}
    assert space.check({"tcp-notsent-lowat": 4096}) == [
        "tcp-notsent-lowat: 4096 is not one of 4294967295, 1048576, 131072, 16384"
    ]


def test_the_plan_s_changes_no_tunable_searches_go_beside_every_trial(soho):
    """Searching the NFS transfer size alone, the rule-based plan's other settings (the dirty
    ratios, TCP buffers, MTU...) are made beside it; its own transfer size, and its one-off
    defragmentation, are not."""
    space, _ = build(soho, ["nfs-transfer-size"], shared_kernel=False, accept_risk=frozenset())
    plan = from_findings(knowledge.evaluate(soho))
    fsr = PlannedChange(id=99, knob="xfs_fsr", target="/srv", current="31.0%", new="defragmented")
    beside = space.unsearched(plan.model_copy(update={"changes": [*plan.changes, fsr]}))
    targets = {c.target for c in beside}
    assert "vm.dirty_ratio" in targets
    assert "/srv" not in targets
    assert not [c for c in beside if c.knob == "ganesha_export"]  # the search's own
    assert not space.changes_anything(space.current())
    on_top = space.on_top_of(beside)
    assert on_top.changes_anything(on_top.current())
    made = on_top.plan({"nfs-transfer-size": 1 << 20}).changes
    assert [c.id for c in made] == list(range(1, len(beside) + 5))  # numbered anew, beside first
    assert [c.target for c in made[: len(beside)]] == [c.target for c in beside]
    assert {c.rule for c in made[len(beside) :]} == {"autotune:nfs-transfer-size"}
    assert on_top.plan(on_top.current()).changes == [c.model_copy(update={"id": i + 1}) for i, c in enumerate(beside)]
