"""block-scheduler: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, F, changes, client, fail


def _scheduler(rotational: bool, active: str) -> Facts:
    f = client()
    d = need(need(f.block).device("sda"))
    d.rotational = F(rotational)
    d.scheduler = F(
        need(d.scheduler.value).model_copy(update={"active": active, "available": ["mq-deadline", "none", "bfq"]})
    )
    return f


CASE = Case(
    lambda: _scheduler(True, "none"),
    lambda: _scheduler(True, "mq-deadline"),
    lambda fs: changes(fs) == [("/sys/block/sda/queue/scheduler", None, "none", "mq-deadline")] or fail(fs),
)
