"""How a lab of either kind comes up: an identical lab that is up and well is kept; anything
else recorded there is taken down first; a lab being built is recorded as such, and one whose
build fails is taken down again, so nothing half-built is left."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from nastune.lab.scenario import Scenario
from nastune.lab.sh import LabError
from nastune.lab.state import Record, State


class Built(Protocol):
    dir: Path
    state: State

    def status(self) -> list[dict]: ...

    def down(self, log: Callable[[str], None] = print) -> None: ...


def kept(lab: Built, scenario: Scenario, what: str, log: Callable[[str], None]) -> bool:
    """True when the same lab is already up and well; otherwise whatever `what` left here is
    taken down."""
    if not lab.state.exists:
        return False
    if lab.state.up and lab.state.record.scenario == scenario and all(part["ok"] for part in lab.status()):
        return True
    log(f"an earlier {what} is here: removing it first")
    lab.down(log)
    return False


@contextmanager
def building(lab: Built, scenario: Scenario, log: Callable[[str], None]) -> Iterator[Record]:
    """The lab's record while it is built: "up" once the block ends, and on any failure
    "failed" and the lab taken down (what cannot be removed is named)."""
    lab.dir.mkdir(parents=True, exist_ok=True)
    lab.state.record = Record(status="building", scenario=scenario, dir=str(lab.dir))
    lab.state.save()
    try:
        yield lab.state.record
    except BaseException:
        lab.state.record.status = "failed"
        lab.state.save()
        log("up failed: removing what it made")
        try:
            lab.down(log)
        except LabError as cleanup:
            log(f"cleanup incomplete ({cleanup}); run `nastune lab down` again")
        raise
    lab.state.record.status = "up"
    lab.state.save()
