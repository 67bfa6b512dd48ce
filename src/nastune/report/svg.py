"""The report's charts as static SVG, drawn here from their numbers: grouped or stacked bars with
their intervals and the link's goodput as a dashed line, curves (on log axes where IOzone's
are), and a heat map. A report then opens offline, anywhere, at a few kilobytes a chart, where
the Plotly bundle it carried was 2.4 MB for the one chart its first screen shows; what the
interactive charts added (hovering a bar for its number) each chart's caption and the CSV give."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

WIDTH, LEFT, RIGHT, TOP, BOTTOM = 960, 64, 16, 28, 64
COLOURS = ("#3366cc", "#ff9900", "#109618", "#990099", "#dc3912", "#0099c6", "#dd4477", "#66aa00")


@dataclass
class Series:
    """One series: a value per group (or per x), and for bars each value's interval."""

    name: str
    values: Sequence[float]
    lows: Sequence[float] | None = None
    highs: Sequence[float] | None = None
    xs: Sequence[float] | None = None  # curves: where each value is


def nice(top: float) -> list[float]:
    """Round ticks from 0 to at least `top`: about five of them."""
    if top <= 0 or not math.isfinite(top):
        return [0.0, 1.0]
    raw = top / 5
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if step * m >= raw)
    return [step * i for i in range(math.ceil(top / step) + 1)]


def _number(x: float) -> str:
    return f"{x:.0f}" if abs(x) >= 100 or x == int(x) else f"{x:.3g}"


def _frame(title: str, height: int, body: list[str], legend: Sequence[str]) -> str:
    keys = "".join(
        f'<span style="color:{COLOURS[i % len(COLOURS)]}">&#9632;</span> {escape(n)} ' for i, n in enumerate(legend)
    )
    svg = (
        f'<svg viewBox="0 0 {WIDTH} {height}" width="100%" role="img" aria-label="{escape(title)}" '
        f'font-family="system-ui, sans-serif" font-size="12">{"".join(body)}</svg>'
    )
    return f'<figure class="chart"><figcaption><b>{escape(title)}</b> {keys}</figcaption>{svg}</figure>'


def _y_axis(ticks: list[float], y: Callable[[float], float], unit: str) -> list[str]:
    """Grid lines and their numbers, and the axis's unit."""
    parts = [f'<text x="12" y="{TOP - 10}" fill="#555">{escape(unit)}</text>']
    for t in ticks:
        row = y(t)
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{row:.1f}" y2="{row:.1f}" stroke="#e4e4e4"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{row + 4:.1f}" text-anchor="end" fill="#555">{_number(t)}</text>')
    return parts


def bars(
    title: str,
    groups: Sequence[str],
    series: Sequence[Series],
    unit: str,
    lines: Sequence[tuple[str, float]] = (),
    stacked: bool = False,
    height: int = 340,
) -> str:
    """Bars per group, one per series side by side (or stacked), each with its interval as a
    whisker; `lines`: labelled horizontal lines (the link's goodput)."""
    tops = [sum(s.values[g] for s in series) for g in range(len(groups))] if stacked else []
    highest = max([*tops, *(h for s in series for h in (s.highs or s.values)), *(y for _, y in lines), 0.0])
    ticks = nice(highest * 1.05)
    plot = height - TOP - BOTTOM
    y = lambda v: TOP + plot * (1 - v / ticks[-1])
    parts = _y_axis(ticks, y, unit)
    slot = (WIDTH - LEFT - RIGHT) / max(len(groups), 1)
    width = slot * 0.8 / (1 if stacked else max(len(series), 1))
    for g, group in enumerate(groups):
        base = 0.0
        for k, s in enumerate(series):
            x = LEFT + g * slot + slot * 0.1 + (0 if stacked else k * width)
            low, value = (base, base + s.values[g]) if stacked else (0.0, s.values[g])
            colour = COLOURS[k % len(COLOURS)]
            parts.append(
                f'<rect x="{x:.1f}" y="{y(value):.1f}" width="{width:.1f}" height="{y(low) - y(value):.1f}" '
                f'fill="{colour}"><title>{escape(s.name)}: {_number(s.values[g])} {escape(unit)}</title></rect>'
            )
            if s.lows is not None and s.highs is not None and not stacked:
                mid = x + width / 2
                top, bottom = y(s.highs[g]), y(s.lows[g])
                parts.append(f'<line x1="{mid:.1f}" x2="{mid:.1f}" y1="{bottom:.1f}" y2="{top:.1f}" stroke="#222"/>')
            base = value if stacked else base
        label = escape(group)
        x = LEFT + (g + 0.5) * slot
        parts.append(
            f'<text x="{x:.1f}" y="{height - BOTTOM + 14}" text-anchor="end" transform="rotate(-20 {x:.1f} '
            f'{height - BOTTOM + 14})" fill="#333">{label}</text>'
        )
    for k, (label, at) in enumerate(lines):
        row = y(at)
        dash = 'stroke="#dc3912" stroke-dasharray="6 4"'
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{row:.1f}" y2="{row:.1f}" {dash}/>')
        anchor, x = ("end", WIDTH - RIGHT - 4) if k % 2 == 0 else ("start", LEFT + 4)  # close lines stay readable
        parts.append(f'<text x="{x}" y="{row - 4:.1f}" text-anchor="{anchor}" fill="#dc3912">{escape(label)}</text>')
    return _frame(title, height, parts, [s.name for s in series])


def curves(title: str, series: Sequence[Series], x_unit: str, unit: str, log: bool = False, height: int = 300) -> str:
    """Lines through each series' (x, value) points; `log`: both axes logarithmic."""
    points = [(x, v) for s in series for x, v in zip(s.xs or range(len(s.values)), s.values)]
    scale = (lambda v: math.log10(max(v, 1e-9))) if log else (lambda v: v)
    xs, vs = [scale(x) for x, _ in points], [scale(v) for _, v in points]
    x0, x1 = (min(xs, default=0.0), max(xs, default=1.0))
    if log:  # whole decades, so that the axis has its powers of ten to read against
        v0, v1 = math.floor(min(vs, default=0.0)), math.ceil(max(vs, default=1.0))
        v1 = max(v1, v0 + 1)
    else:
        v0, v1 = 0.0, max(vs, default=1.0) * 1.05
    span_x, span_v = (x1 - x0) or 1.0, (v1 - v0) or 1.0
    plot = height - TOP - BOTTOM
    px = lambda x: LEFT + (WIDTH - LEFT - RIGHT) * (scale(x) - x0) / span_x
    py = lambda v: TOP + plot * (1 - (scale(v) - v0) / span_v)
    ticks = [10**e for e in range(math.floor(v0), math.ceil(v1) + 1)] if log else nice(v1)
    parts = _y_axis([t for t in ticks if v0 <= scale(t) <= v1 or not log], py, unit)
    for k, s in enumerate(series):
        path = " ".join(f"{px(x):.1f},{py(v):.1f}" for x, v in zip(s.xs or range(len(s.values)), s.values))
        colour = COLOURS[k % len(COLOURS)]
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
    for x in sorted({x for s in series for x in (s.xs or [])})[:: max(1, len(points) // 12 or 1)]:  # its own x's
        parts.append(
            f'<text x="{px(x):.1f}" y="{height - BOTTOM + 16}" text-anchor="middle" fill="#555">{_number(x)}</text>'
        )
    parts.append(f'<text x="{WIDTH - RIGHT}" y="{height - 8}" text-anchor="end" fill="#555">{escape(x_unit)}</text>')
    return _frame(title, height, parts, [s.name for s in series])


def heatmap(title: str, rows: Sequence[str], columns: Sequence[str], z: Sequence[Sequence[float]], unit: str) -> str:
    """A cell per (row, column), darker for more, each with its number."""
    top = max((v for row in z for v in row), default=1.0) or 1.0
    cell_w, cell_h = (WIDTH - 160) / max(len(columns), 1), 40
    height = TOP + cell_h * len(rows) + 40
    parts = []
    for r, name in enumerate(rows):
        parts.append(f'<text x="150" y="{TOP + r * cell_h + 25}" text-anchor="end">{escape(name)}</text>')
        for c, v in enumerate(z[r]):
            shade = int(235 - 180 * v / top)
            x, yy = 160 + c * cell_w, TOP + r * cell_h
            fill = f"rgb({shade},{shade},255)"
            parts.append(f'<rect x="{x:.1f}" y="{yy}" width="{cell_w - 2:.1f}" height="{cell_h - 2}" fill="{fill}"/>')
            ink = "#fff" if shade < 140 else "#000"
            said = f"{_number(v)} {escape(unit)}"
            middle = x + cell_w / 2
            parts.append(f'<text x="{middle:.1f}" y="{yy + 25}" text-anchor="middle" fill="{ink}">{said}</text>')
    for c, name in enumerate(columns):
        x = 160 + (c + 0.5) * cell_w
        parts.append(f'<text x="{x:.1f}" y="{height - 12}" text-anchor="middle">{escape(name)}</text>')
    return _frame(title, int(height), parts, [])
