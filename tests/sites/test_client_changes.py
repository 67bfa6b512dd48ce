"""Changes a plan makes on a client: found on the client's own facts by the rules true of
clients, carried in the plan with the client's name, kept apart from the NAS's, and applied only
through the inventory that names the client (the lab's test_client_changes_lab applies them)."""

from __future__ import annotations

import pytest

from nastune import rules as knowledge
from nastune.errors import UsageError
from nastune.facts import Facts
from nastune.remote.agent import Agent
from nastune.remote.inventory import Host, Nas
from nastune.report.tune_view import plan_table
from nastune.root import Root
from nastune.sites import handles
from nastune.sites.live import LiveSite
from nastune.sites.tuner import OnNas
from nastune.tune.journal import Journal
from nastune.tune.plan import Plan, PlannedChange, from_findings, load
from nastune.tune.review import Review
from nastune.tune.system import System, TuneError
from tests.conftest import run_cli
from tests.rules import kit
from tests.tune.conftest import applied, write_plan

SLOW_START = {"knob": "sysctl", "target": "net.ipv4.tcp_slow_start_after_idle", "new": 0}


class _WithClients(LiveSite):
    """This host as the NAS, with clients whose facts are fixture trees' (an inventory reads
    them with nastune on each client, over SSH)."""

    def __init__(self, clients: dict[str, Facts]):
        super().__init__(None)
        self.clients = clients

    def client_facts(self) -> dict[str, Facts]:
        return self.clients


def test_a_client_s_facts_meet_only_the_rules_true_of_clients():
    found = knowledge.evaluate(kit.client(), client="c1")
    assert found
    assert {f.host for f in found} == {"c1"}
    assert all(knowledge.get(f.rule).clients for f in found)
    assert any(not knowledge.get(f.rule).clients for f in knowledge.evaluate(kit.nas()))


def test_a_site_s_findings_are_the_nas_s_and_each_client_s():
    findings = _WithClients({"c1": kit.client(), "c2": kit.client()}).findings(kit.nas())
    hosts = {f.host for f in findings}
    assert hosts == {None, "c1", "c2"}
    plan = from_findings(findings)
    on_c1 = [c for c in plan.changes if c.host == "c1"]
    on_c2 = [(c.knob, c.target, c.key) for c in plan.changes if c.host == "c2"]
    assert on_c1  # the same change on two clients is two changes, one per host
    assert [(c.knob, c.target, c.key) for c in on_c1] == on_c2


def test_a_host_is_a_name_an_inventory_could_hold(tmp_path):
    with pytest.raises(TuneError, match=r"field changes\[0\]\.host: String should match pattern"):
        load(write_plan(tmp_path, [{**SLOW_START, "host": "c1; rm -rf /"}]))
    assert load(write_plan(tmp_path, [{**SLOW_START, "host": "c1"}])).changes[0].host == "c1"


def test_a_client_s_change_is_named_as_such_where_the_operator_decides():
    plan = Plan(changes=[PlannedChange(id=1, **SLOW_START), PlannedChange(id=2, **SLOW_START, host="c1")])
    labels = [s.label for s in Review.of(plan, []).settings]
    assert labels == [
        "sysctl net.ipv4.tcp_slow_start_after_idle",
        "on client c1: sysctl net.ipv4.tcp_slow_start_after_idle",
    ]
    assert plan_table(plan).columns[1] == "host"
    only_nas = plan.model_copy(update={"changes": plan.changes[:1]})
    assert plan_table(only_nas).columns[1] == "rule"


def test_a_plan_for_a_client_is_refused_outside_an_inventory(root, tmp_path):
    path = write_plan(tmp_path, [{**SLOW_START, "host": "c1"}])
    refused = run_cli("apply", str(path), "--root", str(root), "--yes", check=False)
    assert refused.returncode == 2
    assert "changes[0].host: a change for client c1; apply the plan with --inventory" in refused.stderr


def test_no_engine_here_applies_a_client_s_change_to_this_host(root):
    """ab, optimize and autotune on this host or the lab apply through the engine itself."""
    plan = Plan(changes=[PlannedChange(id=1, **SLOW_START, host="c1")])
    system = System(root=Root(root))
    with pytest.raises(TuneError, match=r"changes\[0\]\.host: a change for client c1"):
        applied(plan, system, log=print)
    assert Journal.all(system) == []


def _on_nas(*tuned: str) -> OnNas:
    nas = Nas(name="nas", address="192.0.2.5", data_address="192.0.2.5")
    clients = {n: Agent(Host(name=n, address="192.0.2.6", command=["nastune"]), "client") for n in tuned}
    return OnNas(Agent(nas), "hosts.ini", tuned=clients)


def test_each_host_gets_its_own_part_of_the_plan_nas_first():
    plan = Plan(changes=[PlannedChange(id=1, **SLOW_START, host="c1"), PlannedChange(id=2, **SLOW_START)])
    parts = _on_nas("c1")._parts(plan)
    assert [host for host, _ in parts] == [None, "c1"]
    assert [[c.id for c in part.changes] for _, part in parts] == [[2], [1]]
    assert all(c.host is None for _, part in parts for c in part.changes)  # each host's own plan


def test_a_plan_for_a_client_that_does_not_run_nastune_is_refused_before_anything():
    plan = Plan(changes=[PlannedChange(id=1, **SLOW_START, host="c2")])
    with pytest.raises(UsageError, match=r"changes client c2, which hosts\.ini gives no nastune_command"):
        _on_nas("c1").apply(plan, frozenset(), log=print)


def test_one_journal_value_names_each_host_s_journal():
    parts: list[handles.Part] = [(None, "/var/lib/nastune/journal/a.jsonl"), ("c1", "/var/lib/nastune/journal/b.jsonl")]
    handle = handles.joined(parts)
    assert handle == "/var/lib/nastune/journal/a.jsonl,c1=/var/lib/nastune/journal/b.jsonl"
    assert handles.split(handle, {"c1"}) == parts
    assert handles.split("/var/lib/nastune/journal/a.jsonl", set()) == parts[:1]
    with pytest.raises(UsageError, match="client 'c1', which the inventory has no nastune_command for"):
        handles.split(handle, {"c2"})
    with pytest.raises(UsageError, match="more than one journal of the NAS"):
        handles.split("/a.jsonl,/b.jsonl", set())


def test_explain_says_which_rules_also_look_at_clients():
    said = "also checked on each client of an inventory that runs nastune"
    assert said in run_cli("explain", "tcp-slow-start-after-idle").stdout
    assert said not in run_cli("explain", "smb-aio-off").stdout
