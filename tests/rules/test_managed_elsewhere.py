"""A change another manager on the box also makes is named in its finding, with what that manager
will do: TuneD's profile sets a sysctl again at every start, irqbalance moves an IRQ back within
seconds unless banned, bpftune tunes TCP buffers itself. A change no manager touches says nothing."""

from __future__ import annotations

from nastune import rules
from nastune.facts.managers import Irqbalance, Managers, Tuned
from nastune.rules.model import Change
from nastune.rules.query import managed_by
from tests.conftest import need
from tests.rules.kit import F, nas


def _with(managers: Managers):
    facts = nas()
    need(facts.system).managers = F(managers)
    return facts


def test_each_manager_names_what_it_will_do():
    tuned = Tuned(profile="network-throughput", sysctls={"net.ipv4.tcp_rmem": "4096 131072 16777216"})
    facts = _with(Managers(tuned=tuned, irqbalance=Irqbalance(banned_irqs=[46]), bpftune=True))
    rmem = managed_by(facts, Change(knob="sysctl", target="net.ipv4.tcp_rmem", new="4096 131072 6291456"))
    assert rmem and rmem.manager == "TuneD"
    assert "TuneD's profile network-throughput sets net.ipv4.tcp_rmem" in rmem.note and "at every start" in rmem.note
    wmem = managed_by(facts, Change(knob="sysctl", target="net.ipv4.tcp_wmem", new="4096 16384 6291456"))
    assert wmem and wmem.manager == "bpftune" and wmem.note.startswith("bpftune is running")
    irq = managed_by(facts, Change(knob="irq_affinity", target="irq/45", new="0"))
    assert irq and irq.manager == "irqbalance"
    assert "irqbalance is running and would move IRQ 45 back" in irq.note and "--banirq=45" in irq.note
    assert managed_by(facts, Change(knob="irq_affinity", target="irq/46", new="0")) is None  # banned already
    assert managed_by(facts, Change(knob="sysctl", target="vm.swappiness", new=10)) is None


def test_the_finding_says_it_before_anything_is_applied():
    tuned = Tuned(profile="throughput-performance", sysctls={"net.ipv4.tcp_slow_start_after_idle": "1"})
    found = [f for f in rules.evaluate(_with(Managers(tuned=tuned))) if f.rule == "tcp-slow-start-after-idle"]
    assert found and "Also set elsewhere: TuneD's profile throughput-performance" in found[0].message
    plain = next(f for f in rules.evaluate(nas()) if f.rule == "tcp-slow-start-after-idle")
    assert "TuneD" not in plain.message


def test_where_irqbalance_runs_the_plan_bans_each_irq_it_pins():
    """The IRQ-locality change is undone by irqbalance's next pass unless irqbalance is told to
    leave the IRQ alone: the finding's changes ban each pinned IRQ that is not banned already."""
    from nastune.rules.query import irqbalance_bans

    pins = [Change(knob="irq_affinity", target=f"irq/{n}", new="0") for n in (45, 46)]
    facts = _with(Managers(irqbalance=Irqbalance(config="/etc/default/irqbalance", banned_irqs=[46])))
    assert [(c.knob, c.target, c.new) for c in irqbalance_bans(facts, pins)] == [("irqbalance_ban", "irq/45", "banned")]
    assert irqbalance_bans(_with(Managers()), pins) == []  # not running: nothing to ban from


def test_the_note_says_where_a_persisted_value_holds_against_tuned():
    profile = {"net.ipv4.tcp_rmem": "4096 131072 16777216"}
    change = Change(knob="sysctl", target="net.ipv4.tcp_rmem", new="4096 131072 6291456")
    on = managed_by(_with(Managers(tuned=Tuned(profile="network-throughput", sysctls=profile))), change)
    assert on and "a persisted value holds" in on.note and "child profile" not in on.note
    off = Tuned(profile="network-throughput", sysctls=profile, reapply_sysctl=False)
    said = managed_by(_with(Managers(tuned=off)), change)
    assert said and "child profile, nastune, that includes network-throughput" in said.note


def test_the_plan_s_table_names_the_manager_and_says_what_it_will_do():
    from rich.console import Console

    from nastune.report.tune_view import elsewhere, plan_table
    from nastune.tune.plan import from_findings

    tuned = Tuned(profile="throughput-performance", sysctls={"net.ipv4.tcp_slow_start_after_idle": "1"})
    plan = from_findings(rules.evaluate(_with(Managers(tuned=tuned))))
    console = Console(width=200, record=True)
    console.print(plan_table(plan))
    shown = console.export_text()
    assert "also set by" in shown and "TuneD" in shown
    (line,) = [text for text in elsewhere(plan.changes) if "tcp_slow_start_after_idle" in text]
    assert "also set by TuneD: TuneD's profile throughput-performance sets" in line
    bare = Console(width=200, record=True)
    bare.print(plan_table(from_findings(rules.evaluate(nas()))))
    assert "also set by" not in bare.export_text()
