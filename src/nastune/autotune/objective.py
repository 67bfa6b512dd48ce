"""What autotune maximizes: a weighted mix of workloads' medians, each as a ratio to the base
(so that MB/s and IOPS weigh alike), with an optional bound on another metric.

    smb:seq-write                                 one workload's first metric
    0.6*smb:seq-write + 0.4*nfs:seq-read          a weighted mix
    nfs:seq-read where nfs:rand-read:p99 < 5      the most throughput with p99 under a bound"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nastune.bench.results import MetricResult, ResultSet, TargetRecord
from nastune.errors import Failure

TERM = re.compile(
    r"^(?:(?P<weight>[0-9]*\.?[0-9]+)\s*\*\s*)?(?P<target>[a-z0-9]+):(?P<workload>[a-z0-9-]+)(?::(?P<metric>[^\s]+))?$"
)


class ObjectiveError(Failure, ValueError):
    """An objective that cannot be read; the message quotes the term."""

    code = 2  # bad input


@dataclass(frozen=True)
class Term:
    target: str
    workload: str
    metric: str | None  # None: the workload's first metric
    weight: float = 1.0

    @property
    def spec(self) -> str:
        return f"{self.target}:{self.workload}"

    def measured(self, run: ResultSet) -> MetricResult | None:
        """This term's metric in `run`; None when the workload failed or lacks it."""
        found = next((r for r in run.results if r.workload == self.workload and _kind(r.target) == self.target), None)
        if found is None or found.failed or not found.metrics:
            return None
        return found.metrics.get(self.metric or next(iter(found.metrics)))

    def value(self, run: ResultSet) -> float | None:
        """This term's median, higher is better (a lower-is-better metric is inverted)."""
        m = self.measured(run)
        if m is None:
            return None
        return m.median if m.higher_is_better else 1 / m.median

    def raw(self, run: ResultSet) -> float | None:
        """The median as measured (for a bound)."""
        m = self.measured(run)
        return m.median if m else None


def _kind(target: TargetRecord) -> str:
    return target.kind or target.url.split(":", 1)[0]


@dataclass(frozen=True)
class Objective:
    terms: tuple[Term, ...]
    bound: tuple[Term, str, float] | None = None  # (term, "<" or ">", limit)

    @property
    def workloads(self) -> list[tuple[str, str]]:
        """(target, workload) pairs to measure, in order, each once."""
        seen = [(t.target, t.workload) for t in (*self.terms, *([self.bound[0]] if self.bound else []))]
        return list(dict.fromkeys(seen))

    def medians(self, run: ResultSet) -> dict[str, float | None]:
        return {t.spec: t.value(run) for t in self.terms}

    def score(self, run: ResultSet, base: dict[str, float | None]) -> tuple[float | None, str]:
        """The weighted sum of ratios to the base; None with the reason when a workload failed
        or the bound is broken."""
        total = 0.0
        for t in self.terms:
            v, b = t.value(run), base.get(t.spec)
            if v is None or not b:
                return None, f"{t.spec} gave no result"
            total += t.weight * v / b
        if self.bound:
            term, op, limit = self.bound
            v = term.raw(run)
            if v is None:
                return None, f"{term.spec} gave no result"
            if (op == "<" and not v < limit) or (op == ">" and not v > limit):
                return None, f"{term.spec} {term.metric} is {v:.3g}, not {op} {limit:g}"
        return total / sum(t.weight for t in self.terms), ""


def parse(text: str | None, workloads: list[str]) -> Objective:
    """The objective EXPR, or by default the mean ratio of every workload (TARGET:WORKLOAD)."""
    if not text:
        if not workloads:
            raise ObjectiveError("name the workloads to measure (--workload TARGET:WORKLOAD) or an --objective")
        return Objective(tuple(_term(w) for w in workloads))
    main, _, where = text.partition(" where ")
    terms = tuple(_term(part.strip()) for part in main.split("+"))
    bound = None
    if where:
        m = re.fullmatch(r"\s*(\S+)\s*([<>])\s*([0-9]*\.?[0-9]+)\s*", where)
        if not m:
            raise ObjectiveError(
                f"--objective: cannot read the bound {where.strip()!r} (say TARGET:WORKLOAD:METRIC < N)"
            )
        term = _term(m.group(1))
        if term.metric is None:
            raise ObjectiveError(f"--objective: the bound {m.group(1)!r} must name a metric (TARGET:WORKLOAD:METRIC)")
        bound = (term, m.group(2), float(m.group(3)))
    if sum(t.weight for t in terms) <= 0:
        raise ObjectiveError("--objective: the weights must add up to more than 0")
    return Objective(terms, bound)


def _term(text: str) -> Term:
    m = TERM.match(text)
    if not m:
        raise ObjectiveError(f"--objective: cannot read {text!r} (say [WEIGHT*]TARGET:WORKLOAD[:METRIC])")
    return Term(m["target"], m["workload"], m["metric"], float(m["weight"] or 1))
