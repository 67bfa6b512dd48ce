"""An interleaved A/B run's result (`nastune ab`, and optimize's interleaved run): the JSON ab
prints (wire.Ab), and the results of A and B it was judged from, which the report draws."""

from __future__ import annotations

from pydantic import Field

from nastune import wire
from nastune.bench.results import ResultSet


class AbOutcome(wire.Ab):
    runs: list[ResultSet] = Field(default_factory=list, exclude=True)  # A's results and B's: not in ab.json
