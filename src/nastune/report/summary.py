"""The answer read in a minute, as benchstat and hyperfine print theirs: one table first, a row
per metric that moved (`before | after | change (95% interval) | verdict | limit now`, the limit
in a few words), the rules' own effects in a second, then a line each for the report, the undo
command and persistence. Plain text within WIDTH columns: a row too long wraps at a space, never
inside a word, and a target drops its host where one NAS serves them all. The console and the
report's first screen print the same lines."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import urlparse

if TYPE_CHECKING:  # the command line imports this at start: annotations only
    from nastune.bench.results import ResultSet
    from nastune.outcomes.screen import Screened
    from nastune.wire import Verdict

WIDTH = 80
# what limited a run, in a few words (bench.limits' factors)
SHORT = {
    "cpu-quota": "CPU quota",
    "smb-protection": "signing CPU",
    "serving-thread": "one thread",
    "softirq-one-cpu": "softirq CPU",
    "disk": "disk",
    "tcp-window": "TCP window",
    "rpc-size": "RPC size",
    "cpu": "CPU",
    "io-stall": "I/O stalls",
    "other-load": "other load",
}
LATENCY = "latency"
OWN = ("system", "iperf3")  # targets named by their workload alone (the machine, the link)


def fitted(line: str, indent: int = 2) -> list[str]:
    """`line` within WIDTH, wrapped at spaces (a word longer than a line stays whole)."""
    if len(line) <= WIDTH:
        return [line]
    return textwrap.wrap(line, WIDTH, subsequent_indent=" " * indent, break_long_words=False, break_on_hyphens=False)


def target_name(url: str, shares: dict[str, int]) -> str:
    """A target as a row names it: its protocol, and its share where the protocol serves several
    (`shares`: how many targets each protocol has; empty where several NASes are measured, which
    keeps every target whole). iperf3's is the link itself: no name."""
    parsed = urlparse(url)
    if parsed.scheme in OWN:
        return ""
    if not shares or not parsed.scheme or not parsed.hostname:
        return url
    share = parsed.path.strip("/")
    return f"{parsed.scheme} {share}" if shares.get(parsed.scheme, 0) > 1 and share else parsed.scheme


def shares_of(rows: list[Verdict]) -> dict[str, int]:
    """How many targets each protocol has, where one NAS serves every share (else empty); the
    machine's own targets (system, iperf3) have no share to tell apart."""
    parsed = [urlparse(r.target) for r in rows]
    served = [p for p in parsed if p.scheme not in OWN and p.hostname]
    if len({p.hostname for p in served}) > 1:
        return {}
    found: dict[str, set[str]] = {}
    for p in served:
        found.setdefault(p.scheme, set()).add(p.path)
    return {scheme: len(paths) for scheme, paths in found.items()} or {"": 0}


def number(x: float) -> str:
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def limits_now(runs: list[ResultSet]) -> dict[str, str]:
    """What limited each workload @ target in the last run, in a few words ("" where nothing was named)."""
    from nastune.bench.limits import LATENCY_BOUND  # lazy: the console's tables load without the profiler's rules

    if not runs:
        return {}
    found = {}
    for r in runs[-1].results:
        factor = r.limits[0].factor if r.limits else ""
        bound = LATENCY if r.attribution == LATENCY_BOUND else ""
        found[r.key] = "link" if factor == "link" else SHORT.get(factor, bound)
    return found


def _limit(row: Verdict, said: str) -> str:
    share = row.after_median / row.limit if row.limit else 0.0
    if said == "link" or share >= 0.95:  # at the link's goodput, whatever else the profile saw
        return f"link {share:.0%}" if share else "link"
    return said


def _what(r: Verdict, shares: dict[str, int]) -> str:
    """workload, target and (where the workload has several) metric, in a few words."""
    named = [r.workload, target_name(r.target, shares)]
    if r.metric != r.unit:
        named.append(r.metric.split(" ")[0])  # upload MB/s: upload; list entries/s: list
    return " ".join(n for n in named if n)


def _change(r: Verdict) -> str:
    """The change and its 95% interval in points: +23% [+10,+30]."""
    low, high = r.change_ci
    if r.interval_text()[:1] not in ("+", "-"):
        return f"{r.change:+.0%}"
    return f"{r.change:+.0%} [{low * 100:+.0f},{high * 100:+.0f}]"


def first_table(rows: list[Verdict], limits: dict[str, str], marked: set[int] | None = None) -> list[str]:
    """A row per metric that moved, aligned; `marked` (indices into `rows`) get a * after their
    verdict; then how many more measured no change."""
    moved = [(i, r) for i, r in enumerate(rows) if r.verdict in ("better", "worse")]
    shares = shares_of(rows)
    cells: list[tuple[str, ...]] = [("metric", "before", "after", "change [95% CI]", "verdict", "limit now")]
    for i, r in moved:
        what, change = _what(r, shares), _change(r)
        verdict = r.verdict + ("*" if marked and i in marked else "")
        limit = _limit(r, limits.get(f"{r.workload} @ {r.target}", ""))
        cells.append((what, number(r.before_median), f"{number(r.after_median)} {r.unit}", change, verdict, limit))
    if not any(row[5] for row in cells[1:]):  # no limit named anywhere: no column for it
        cells = [row[:5] for row in cells]
    widths = [max(len(row[k]) for row in cells) for k in range(len(cells[0]))]
    lines = []
    for row in cells:
        line = "  ".join(x.rjust(w) if k in (1, 2) else x.ljust(w) for k, (x, w) in enumerate(zip(row, widths)))
        lines += fitted(line.rstrip(), indent=4)
    unchanged = len(rows) - len(moved)
    if unchanged:
        lines.append(f"{unchanged} more measured no change beyond the noise (the report lists them)")
    return lines if moved else lines[-1:]


def rules_table(screened: Sequence[Screened]) -> list[str]:
    """A row for each rule that helped or is offered for removal (its own effect: the metric it
    moved most, or the most it could help), a line for the rules kept without a verdict either
    way (their intervals are in the report)."""
    if not screened:
        return []
    shown = [s for s in screened if s.standing == "helped" or s.offered]
    cells = [("rule", "its own effect", "")]
    cells += [(s.rule, _own(s), "offered for removal" if s.offered else "kept") for s in shown]
    widths = [max(len(row[k]) for row in cells) for k in range(3)]
    lines = []
    for row in cells if shown else []:
        lines += fitted("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip(), indent=4)
    rest = [s for s in screened if s not in shown]
    for standing, said in (("unresolved", "not resolved"), ("small", "shown small"), ("no verdict", "no verdict")):
        named = [s.rule for s in rest if s.standing == standing]
        if named:
            lines += fitted(f"kept, {said}: {', '.join(named)}", indent=4)
    return lines


def _own(s: Screened) -> str:
    """A rule's own effect in a few words."""
    if s.standing == "no verdict":
        return "no verdict"
    if s.standing == "helped":
        best = max((r for r in s.rows if r.verdict == "better"), key=lambda r: abs(r.change))
        scheme = urlparse(best.target).scheme
        where = "" if scheme in OWN else f" {scheme or best.target}"
        return f"{best.change:+.0%} {best.workload}{where}"
    bounds = [(r.change_ci, r.higher_is_better) for r in s.rows]
    low = min(lo if up else -hi for (lo, hi), up in bounds)
    high = max(hi if up else -lo for (lo, hi), up in bounds)
    if s.standing == "small":
        return f"at most {high:+.1%}" + (" (kept: an effect with others)" if s.kept_for else "")
    return f"{low:+.0%} to {high:+.0%}: not resolved"
