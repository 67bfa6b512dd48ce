"""An IRQ banned from irqbalance in its own configuration: --banirq added to IRQBALANCE_ARGS (the
line made where there is none, the file's other lines kept), read back, and the file restored
byte for byte by rollback."""

from __future__ import annotations

from nastune.root import Root
from nastune.tune import executor
from nastune.tune.journal import Journal
from nastune.tune.knobs.irqbalance import banned, with_ban
from nastune.tune.plan import Plan, PlannedChange
from nastune.tune.system import System
from tests.tune.conftest import applied, rolled_back

DEBIAN = '# irqbalance\n#IRQBALANCE_ONESHOT=\nIRQBALANCE_ARGS="--policyscript=/etc/irq.sh"\n'


def test_a_ban_joins_the_arguments_or_makes_the_line():
    assert with_ban(DEBIAN, 45).splitlines() == [
        "# irqbalance",
        "#IRQBALANCE_ONESHOT=",
        'IRQBALANCE_ARGS="--policyscript=/etc/irq.sh --banirq=45"',
    ]
    assert with_ban("#IRQBALANCE_ARGS=\n", 7) == '#IRQBALANCE_ARGS=\nIRQBALANCE_ARGS="--banirq=7"\n'
    assert banned(with_ban(DEBIAN, 45), 45) and not banned(DEBIAN, 45)
    assert with_ban(with_ban(DEBIAN, 45), 45) == with_ban(DEBIAN, 45)


def test_applied_read_back_and_rolled_back_byte_for_byte(root):
    config = root / "etc/default/irqbalance"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(DEBIAN)
    system = System(root=Root(str(root)))
    plan = Plan(changes=[PlannedChange(id=1, knob="irqbalance_ban", target="irq/45", new="banned")])
    journal = applied(plan, system, log=lambda m: None)
    assert journal is not None and "--banirq=45" in config.read_text()
    assert all(ok for *_, ok in executor.verify(Journal.at(system, journal.path), system))
    assert rolled_back(Journal.at(system, journal.path), system, log=lambda m: None).ok
    assert config.read_text() == DEBIAN
