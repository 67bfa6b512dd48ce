"""The box's other managers, read as they lay out their files: TuneD's active profile with the
profiles it includes (TuneD's own network-throughput and throughput-performance, as its
repository ships them), irqbalance's configuration with the IRQs it leaves alone."""

from __future__ import annotations

from pathlib import Path

from nastune.facts import managers
from nastune.facts.context import Context
from nastune.root import Root

NETWORK_THROUGHPUT = """[main]
summary=Optimize for streaming network throughput, generally only necessary on older CPUs or 40G+ networks
include=throughput-performance

[sysctl]
net.ipv4.tcp_rmem="4096 131072 16777216"
net.ipv4.tcp_wmem="4096 16384 16777216"
"""
THROUGHPUT_PERFORMANCE = """[cpu]
governor=performance

[sysctl]
kernel.sched_min_granularity_ns = 10000000
vm.dirty_ratio = 40
#vm.dirty_background_ratio = 15
"""


def _tree(tmp_path: Path, files: dict[str, str]) -> Context:
    for path, text in files.items():
        (tmp_path / path[1:]).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path[1:]).write_text(text)
    return Context(Root(str(tmp_path)))


def test_tuned_s_active_profile_and_what_its_includes_set(tmp_path):
    ctx = _tree(
        tmp_path,
        {
            "/etc/tuned/active_profile": "network-throughput\n",
            "/usr/lib/tuned/network-throughput/tuned.conf": NETWORK_THROUGHPUT,
            "/usr/lib/tuned/throughput-performance/tuned.conf": THROUGHPUT_PERFORMANCE,
        },
    )
    found = managers.collect(ctx, {"tuned"}).value
    assert found is not None and found.tuned is not None
    assert found.tuned.profile == "network-throughput" and found.tuned.governor == "performance"
    assert found.tuned.sysctls["net.ipv4.tcp_rmem"] == "4096 131072 16777216"
    assert found.tuned.sysctls["vm.dirty_ratio"] == "40" and "vm.dirty_background_ratio" not in found.tuned.sysctls
    assert found.irqbalance is None and not found.bpftune  # neither running


def test_an_administrator_s_profile_wins_and_a_loop_of_includes_ends(tmp_path):
    ctx = _tree(
        tmp_path,
        {
            "/etc/tuned/active_profile": "mine\n",
            "/etc/tuned/mine/tuned.conf": "[main]\ninclude=mine\n[sysctl]\nvm.swappiness=5\n",
            "/usr/lib/tuned/mine/tuned.conf": "[sysctl]\nvm.swappiness=60\n",
        },
    )
    tuned = managers.tuned(ctx, "mine")
    assert tuned is not None and tuned.sysctls == {"vm.swappiness": "5"}


def test_irqbalance_s_banned_irqs_from_its_arguments(tmp_path):
    ctx = _tree(tmp_path, {"/etc/default/irqbalance": 'IRQBALANCE_ARGS="--banirq=45 -i 46"\n#IRQBALANCE_ONESHOT=\n'})
    found = managers.irqbalance(ctx)
    assert found.config == "/etc/default/irqbalance" and found.banned_irqs == [45, 46]
