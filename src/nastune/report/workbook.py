"""An XLSX workbook beside the report's CSV, for people who work in a spreadsheet as MiNET's 2013 benchmark did: a
sheet of verdicts (and of the interleaved verdicts), the plan, the findings, one sheet per run with every repeat (the
interleaved A and B included), and for each run with an IOzone-style matrix a sheet that lays it
out as file size by record size, one block per operation. Usable as it opens: numbers carry
their format (changes as percentages, p to 3 decimals), the header row stays in view and every
table has its filter.

Text that came from a system (share names, metric names) is written as text, never as a
formula: a share named `=HYPERLINK(...)` must not run in someone's spreadsheet."""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font
from openpyxl.worksheet.worksheet import Worksheet

from nastune.bench.results import ResultSet
from nastune.wire import Verdict

IOZONE = re.compile(r"(\S+) (\d+[KM]) rec (\d+[KM]) (MB/s|latency)")
_UNSAFE = re.compile(r"[\[\]:*?/\\]")
BOLD = Font(bold=True)


def _text(value: str) -> str:
    """Text as a cell can hold it: XLSX has no control characters (openpyxl refuses them)."""
    return ILLEGAL_CHARACTERS_RE.sub("\ufffd", value)


def _put(sheet: Worksheet, row: int, values: list) -> None:
    for col, value in enumerate(values, 1):
        cell = sheet.cell(row=row, column=col, value=_text(value) if isinstance(value, str) else value)
        if isinstance(value, str):
            cell.data_type = "s"  # never a formula


def _header(sheet: Worksheet, row: int, values: list[str]) -> None:
    _put(sheet, row, values)
    for cell in sheet[row]:
        cell.font = BOLD


def _title(label: str, taken: set[str]) -> str:
    """A sheet name Excel accepts: at most 31 characters, none of []:*?/\\, unique."""
    base = _UNSAFE.sub("_", _text(label))[:28] or "run"
    name, n = base, 1
    while name.lower() in taken:
        n += 1
        name = f"{base[:25]} ({n})"
    taken.add(name.lower())
    return name


def _bytes(size: str) -> int:
    return int(size[:-1]) * (1 << 20 if size.endswith("M") else 1 << 10)


FORMATS = {"before": "0.0##", "after": "0.0##", "A": "0.0##", "B": "0.0##", "change": "+0.0%;-0.0%;0.0%"}
FORMATS |= {"low": FORMATS["change"], "high": FORMATS["change"], "p": "0.000", "median": "0.0##", "limit": "0.0"}


def _verdicts(sheet: Worksheet, rows: list[Verdict], before: str = "before", after: str = "after") -> None:
    columns = ["workload", "target", "metric", "unit", before, after, "change", "low", "high", "p", "verdict"]
    _header(sheet, 1, columns)
    for n, r in enumerate(rows, 2):
        _put(
            sheet,
            n,
            [r.workload, r.target, r.metric, r.unit, r.before_median, r.after_median, r.change]
            + [x if math.isfinite(x) else None for x in r.change_ci]
            + [r.p_value, r.verdict_text()],
        )
    _usable(sheet, columns)


def _usable(sheet: Worksheet, columns: list[str]) -> None:
    """Number formats by column, the header frozen, a filter over the table, readable widths."""
    for col, name in enumerate(columns, 1):
        letter = sheet.cell(row=1, column=col).column_letter
        fmt = FORMATS.get(name, "0.0##" if name.startswith("repeat ") else None)
        if fmt:
            for (cell,) in sheet.iter_rows(min_row=2, min_col=col, max_col=col):
                cell.number_format = fmt
        longest = max((len(str(cell.value or "")) for (cell,) in sheet.iter_rows(min_col=col, max_col=col)), default=0)
        sheet.column_dimensions[letter].width = max(10, min(60, longest + 2))
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = sheet.dimensions


def _repeats(sheet: Worksheet, rs: ResultSet) -> None:
    most = max((len(m.values) for r in rs.results for m in r.metrics.values()), default=0)
    columns = ["workload", "target", "metric", "unit", "median", "limit", *(f"repeat {i}" for i in range(1, most + 1))]
    _header(sheet, 1, [*columns, "flags"])
    n = 2
    for r in rs.results:
        for name, m in r.metrics.items():
            values = list(m.values) + [None] * (most - len(m.values))
            _put(sheet, n, [r.workload, r.target.url, name, m.unit, m.median, m.limit, *values])
            _put_flags(sheet, n, most + 7, m.flags)
            n += 1
    _usable(sheet, [*columns, "flags"])


def _put_flags(sheet: Worksheet, row: int, col: int, flags: list[str]) -> None:
    if flags:
        cell = sheet.cell(row=row, column=col, value=_text("; ".join(flags)))
        cell.data_type = "s"


def _matrix(sheet: Worksheet, rs: ResultSet) -> bool:
    """Each IOzone operation and kind as a block: file sizes down, record sizes across, medians."""
    row = 1
    for r in rs.results:
        cells: dict[tuple[str, str], dict[tuple[str, str], float]] = {}
        for name, m in r.metrics.items():
            if (found := IOZONE.fullmatch(name)) and m.values:
                op, file_size, record, kind = found.groups()
                cells.setdefault((op, f"{kind} ({m.unit})"), {})[(file_size, record)] = statistics.median(m.values)
        for (op, kind), values in cells.items():
            files = sorted({f for f, _ in values}, key=_bytes)
            records = sorted({rec for _, rec in values}, key=_bytes)
            _header(sheet, row, [f"{op}, {kind}, {r.target.url}: file size \\ record size", *records])
            for f in files:
                row += 1
                _put(sheet, row, [f, *(values.get((f, rec)) for rec in records)])
            row += 2
    return row > 1


@dataclass
class Sheets:
    """What the workbook lays out besides the runs: both verdict tables, the plan and the findings."""

    rows: list[Verdict]
    interleaved: list[Verdict] = field(default_factory=list)
    plan: list[dict] = field(default_factory=list)  # the changes, as the plan file holds them
    findings: list[dict] = field(default_factory=list)  # as diagnose --json prints them


PLAN = ["rule", "knob", "target", "key", "current", "new", "risk", "why"]
FINDINGS = ["severity", "rule", "target", "message", "advice", "tradeoff", "source"]


def _records(sheet: Worksheet, columns: list[str], records: list[dict]) -> None:
    """One row per record, its fields as text; a change's risks in one column."""
    _header(sheet, 1, columns)
    for n, record in enumerate(records, 2):
        values = {**record, "risk": ", ".join(record.get("risks") or [])}
        _put(sheet, n, ["" if values.get(c) is None else str(values.get(c)) for c in columns])
    _usable(sheet, columns)


def write(runs: list[ResultSet], path: Path, labels: list[str], sheets: Sheets) -> Path:
    book = Workbook()
    verdicts = book.active
    assert verdicts is not None
    verdicts.title = "verdicts"
    _verdicts(verdicts, sheets.rows)
    taken = {"verdicts"}
    if sheets.interleaved:
        _verdicts(book.create_sheet(_title("verdicts, interleaved", taken)), sheets.interleaved, "A", "B")
    if sheets.plan:
        _records(book.create_sheet(_title("plan", taken)), PLAN, sheets.plan)
    if sheets.findings:
        _records(book.create_sheet(_title("findings", taken)), FINDINGS, sheets.findings)
    for rs, label in zip(runs, labels, strict=True):
        _repeats(book.create_sheet(_title(label, taken)), rs)
        matrix = book.create_sheet(_title(f"{label} iozone", taken))
        if not _matrix(matrix, rs):
            book.remove(matrix)
    book.save(path)
    return path
