"""Console tables of nastune's results: comparisons, bench results, verify rows, lab parts."""

from __future__ import annotations

from nastune.report import layout


def tally(rows: list) -> str:
    """Verdict rows counted each way: better, worse, small (a known sign within the noise floor), unchanged."""
    better = sum(r.result.verdict == "better" for r in rows)
    worse = sum(r.result.verdict == "worse" for r in rows)
    small = sum(r.result.small() for r in rows)
    within = f"{small} small (a known sign, within the noise floor), " if small else ""
    return f"{better} better, {worse} worse, {within}{len(rows) - better - worse - small} unchanged (within noise)"


def comparison(rows, title: str) -> layout.Records:
    table = layout.Records(
        title, *("workload", "target", "metric", "before", "after", "change (95% CI)", "p", "verdict")
    )
    colour = {"better": "green", "worse": "red", "~": "dim"}
    for r in rows:
        c = r.result
        table.add_row(
            r.workload,
            r.target,
            r.metric,
            f"{c.before_median:.4g} {r.unit}",
            f"{c.after_median:.4g} {r.unit}",
            f"{c.change:+.1%} ({c.interval_text()})",
            "< 0.001" if c.p_value < 0.001 else f"{c.p_value:.3f}",
            layout.styled(c.verdict_text(), colour[c.verdict]),
        )
    return table
