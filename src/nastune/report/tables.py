"""Console tables of nastune's results: comparisons, bench results, verify rows, lab parts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text

from nastune.report import layout

if TYPE_CHECKING:  # the statistics (numpy) load only where a comparison is made
    from nastune.bench.results import ResultSet
    from nastune.wire import Verdict


def tally(rows: list) -> str:
    """Verdict rows counted each way: better, worse, small (a known sign within the noise floor), unchanged."""
    better = sum(r.verdict == "better" for r in rows)
    worse = sum(r.verdict == "worse" for r in rows)
    small = sum(r.small() for r in rows)
    within = f"{small} small (a known sign, within the noise floor), " if small else ""
    return f"{better} better, {worse} worse, {within}{len(rows) - better - worse - small} unchanged (within noise)"


def limited(runs: list[ResultSet]) -> dict[str, tuple[str, str]]:
    """What limited each workload in the first run and in the last, from the server's profile
    (nothing where the profile saw too little of a run to say)."""
    from nastune.bench.limits import LATENCY_BOUND  # lazy: the console's tables load without the profiler's rules

    if len(runs) < 2:
        return {}
    first, last = (
        {r.key: r.attribution for r in rs.results if r.limits or r.attribution == LATENCY_BOUND}
        for rs in (runs[0], runs[-1])
    )
    return {key: (first.get(key, ""), last.get(key, "")) for key in first.keys() | last.keys()}


AT_LINK = 0.95  # of the link's goodput: a transfer there is limited by the link, whatever the profile saw


def _at_link(r: Verdict) -> str:
    """ "at 97% of the link's goodput" for a transfer whose median after reaches AT_LINK of it."""
    share = r.after_median / r.limit if r.limit else 0.0
    return f"at {share:.0%} of the link's goodput" if share >= AT_LINK else ""


def unexplained(rows: list[Verdict], limits: dict[str, tuple[str, str]]) -> list[str]:
    """The transfers that stayed below AT_LINK of the link's goodput after the change, with nothing
    named that limited them: a gap in nastune's profile, which the report owns up to."""
    flagged = []
    for r in rows:
        key = f"{r.workload} @ {r.target}"
        if r.limit and not limits.get(key, ("", ""))[1] and not _at_link(r):
            share = r.after_median / r.limit
            flagged.append(
                f"{key}: {r.after_median:.1f} {r.unit} after, {share:.0%} of the link's goodput, and nothing "
                "named that limited it (nastune's profile missed it: please report it)"
            )
    return flagged


def moved(rows: list, limits: dict[str, tuple[str, str]] | None = None) -> list[str]:
    """Each metric that moved, as a reader wants it first: "seq-write @ nfs://nas/data: 45.1 -> 113.0
    MB/s (+151%, +140%..+160%): better", and with `limits` (by "workload @ target": what limited
    it before and after, from the server's profile) why."""
    lines = []
    for r in rows:
        if r.verdict in ("better", "worse"):
            key = f"{r.workload} @ {r.target}"
            what = key + ("" if r.metric == r.unit else f" {r.metric}")
            line = f"{what}: {r.before_median:.1f} -> {r.after_median:.1f} {r.unit} ({r.change:+.0%}"
            line += f", {r.interval_text()}): {r.verdict}"
            was, now = (limits or {}).get(key, ("", ""))
            now = now or _at_link(r)
            if was or now:
                line += f". What limited it before: {was or 'not known'}; after: {now or 'not known'}"
            lines.append(line)
    return lines


class Verdicts(layout.Records):
    """Verdict rows; when too narrow for a table, two lines per row (what and how much, then the
    change, p and verdict) rather than a line per field."""

    def stacked(self) -> Group:
        parts: list = [Text(self.title, style="bold")]
        for workload, target, metric, before, after, change, p, verdict in self.rows:
            what = f"{workload} @ {target}" + ("" if str(before).endswith(f" {metric}") else f" {metric}")
            parts.append(Text.assemble(("- ", "dim"), f"{what}: {before} -> {after}"))
            parts.append(Text.assemble(f"    {change}, p {p}: ", verdict))
        return Group(*parts)


def comparison(rows: list[Verdict], title: str, sides: tuple[str, str] = ("before", "after")) -> Verdicts:
    """`sides`: what the two columns are (an interleaved run's A and B, or before and after)."""
    table = Verdicts(title, *("workload", "target", "metric", *sides, "change (95% CI)", "p", "verdict"))
    colour = {"better": "green", "worse": "red", "~": "dim"}
    for r in rows:
        table.add_row(
            r.workload,
            r.target,
            r.metric,
            f"{r.before_median:.4g} {r.unit}",
            f"{r.after_median:.4g} {r.unit}",
            f"{r.change:+.1%} ({r.interval_text()})",
            "< 0.001" if r.p_value < 0.001 else f"{r.p_value:.3f}",
            layout.styled(r.verdict_text(), colour[r.verdict]),
        )
    return table
