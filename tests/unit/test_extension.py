"""A contributor adds a setting and its rule as two modules of an installed package, and nothing in
nastune changes: the package, made here in a temporary directory with its entry points as a wheel
installs them, is seen by explain, plan, apply, rollback and autotune's search space."""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from nastune import plugins
from nastune.autotune import space
from nastune.facts import collect
from nastune.root import Root
from tests.conftest import run_cli

SETTING = '''
"""net.core.busy_read as a setting: its knob and the range autotune searches."""
from nastune.tune.knobs.domains import Steps
from nastune.tune.knobs.tunable import Tunable
from nastune.rules.model import Change
from nastune.tune.knobs.base import _int_range
from nastune.tune.knobs.kernel import FileValue


class BusyRead(FileValue):
    kind, phase = "busy_read", 10
    doc = "net.core.busy_read: how long a socket read polls the NIC before it sleeps (target: the key)"

    def validate(self, change):
        _int_range(change, 0, 1000, "busy_read")

    def path(self, change):
        return "/proc/sys/net/core/busy_read"


class BusyReadRange(Tunable):
    def find(self, facts):
        value = facts.sysctl.int("net.core.busy_read") if facts.sysctl else None
        return None if value is None else (value, ("net.core.busy_read",), {})

    def changes(self, target, value, context):
        return [Change(knob="busy_read", target=target, new=value)]


TUNABLES = [BusyReadRange("busy-read", "net.core.busy_read", Steps(0, 100, 50, "us"))]
'''

RULE = '''
"""busy-read-off: a rule whose change is the extension's own setting."""
from nastune.rules.model import Change, Evidence, Rule, Severity
from nastune.rules.query import present


def check(rule, facts):
    if present(facts.sysctl).int("net.core.busy_read") != 0:
        return
    yield rule.finding(
        target="net.core.busy_read",
        message="socket reads sleep at once instead of polling the NIC",
        evidence=[Evidence(fact="net.core.busy_read", value="0", source="/proc/sys/net/core/busy_read")],
        changes=[Change(knob="busy_read", target="net.core.busy_read", current=0, new=50)],
    )


RULE = Rule(
    id="busy-read-off",
    title="Socket reads never busy-poll",
    area="network",
    severity=Severity.low,
    check=check,
    needs=("sysctl",),
    gain="A read polls the NIC for 50 us before it sleeps.",
    tradeoff="A CPU spins while it polls.",
    source="Linux kernel documentation, net.core.busy_read, https://docs.kernel.org/admin-guide/sysctl/net.html",
)
'''

DOC = "# busy-read-off: Socket reads never busy-poll\n\n## Fix\n`busy_read` net.core.busy_read = 50.\n"  # its docstring


@pytest.fixture
def extension(tmp_path, monkeypatch):
    """The package on a path of its own, with the entry points a wheel's installation writes."""
    site = tmp_path / "site"
    (site / "nastune_busy_read").mkdir(parents=True)
    (site / "nastune_busy_read/__init__.py").write_text("")
    (site / "nastune_busy_read/setting.py").write_text(textwrap.dedent(SETTING))
    (site / "nastune_busy_read/rule.py").write_text(f'"""{DOC}"""\n' + textwrap.dedent(RULE))
    info = site / "nastune_busy_read-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nastune-busy-read\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[nastune.settings]\nbusy_read = nastune_busy_read.setting\n\n[nastune.rules]\nbusy_read = nastune_busy_read.rule\n"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(site))
    plugins.reset()
    yield site
    monkeypatch.undo()
    plugins.reset()  # the other tests see nastune's own settings and rules only


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    (root / "proc/sys/net/core").mkdir(parents=True)
    (root / "proc/sys/net/core/busy_read").write_text("0\n")
    return root


def test_an_installed_setting_and_rule_are_explained_planned_applied_rolled_back_and_searched(
    extension, tree, tmp_path
):
    explained = run_cli("explain", "busy-read-off").stdout
    assert "Socket reads never busy-poll" in explained and "docs.kernel.org/admin-guide/sysctl/net.html" in explained
    plan = tmp_path / "plan.json"
    run_cli("plan", "--root", str(tree), "--only", "busy-read-off", "--out", str(plan))
    (change,) = json.loads(plan.read_text())["changes"]
    assert (change["knob"], change["target"], change["new"]) == ("busy_read", "net.core.busy_read", 50)
    run_cli("apply", str(plan), "--root", str(tree), "--yes")
    assert (tree / "proc/sys/net/core/busy_read").read_text().strip() == "50"
    run_cli("rollback", "--root", str(tree))
    assert (tree / "proc/sys/net/core/busy_read").read_text() == "0\n"
    searched, _ = space.build(collect(Root(str(tree))), ["busy-read"], shared_kernel=False, accept_risk=frozenset())
    assert searched.current() == {"busy-read": 0}
    (made,) = searched.plan({"busy-read": 100}).changes
    assert (made.knob, made.target, made.new) == ("busy_read", "net.core.busy_read", 100)


def test_without_the_package_nastune_knows_neither(tree):
    plugins.reset()
    assert run_cli("explain", "busy-read-off", check=False).returncode == 2
    with pytest.raises(space.SpaceError, match="unknown tunable 'busy-read'"):
        space.build(collect(Root(str(tree))), ["busy-read"], shared_kernel=False, accept_risk=frozenset())


def test_the_declared_extensions_are_read_from_the_cache_until_an_import_path_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    plugins.reset()
    assert plugins.declared()[plugins.RULES] == []  # nastune's own package declares none
    (cached,) = (tmp_path / "cache/nastune").iterdir()
    held = json.loads(cached.read_text())
    held["points"][plugins.RULES] = [["marker", "json"]]  # what only the cache says
    cached.write_text(json.dumps(held))
    plugins.reset()
    assert plugins.declared()[plugins.RULES] == [("marker", "json")]
    moved = tmp_path / "site"
    moved.mkdir()
    monkeypatch.syspath_prepend(str(moved))  # a path added, as installing into a new one does
    plugins.reset()
    assert plugins.declared()[plugins.RULES] == []
    plugins.declared()  # the cache now holds the new path
    held = json.loads(cached.read_text())
    held["points"][plugins.RULES] = [["marker", "json"]]
    cached.write_text(json.dumps(held))
    (moved / "pkg-0.1.dist-info").mkdir()  # a package installed into a path already there
    stamp = os.stat(moved).st_mtime_ns
    os.utime(moved, ns=(stamp, stamp + 1))  # its time moved, even within the clock's tick
    plugins.reset()
    assert plugins.declared()[plugins.RULES] == []
    monkeypatch.undo()
    plugins.reset()
