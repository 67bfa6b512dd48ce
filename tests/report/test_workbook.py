"""The XLSX workbook: read back with openpyxl, it holds the verdicts, every repeat of every run
and the IOzone-style matrix as file size by record size; system text stays text."""

from __future__ import annotations

from openpyxl import load_workbook

from nastune.report.workbook import Sheets, write
from nastune.stats.runs import compare_runs
from tests.report.test_report import result_set


def test_the_workbook_holds_verdicts_repeats_and_the_matrix(tmp_path):
    before, after = result_set("before", 1.0), result_set("after", 1.2)
    before.results[0].target.url = '=HYPERLINK("http://x")'
    after.results[0].target.url = before.results[0].target.url
    rows, _ = compare_runs(before, after)
    book = load_workbook(write([before, after], tmp_path / "r.xlsx", ["before", "after/2"], Sheets(rows)))
    assert book.sheetnames == ["verdicts", "before", "before iozone", "after_2", "after_2 iozone"]
    verdicts = list(book["verdicts"].values)
    assert verdicts[0][0] == "workload"
    assert len(verdicts) == len(rows) + 1
    seq = next(r for r in verdicts[1:] if r[0] == "seq-write")
    assert seq[6] > 0.15
    assert seq[10] == "better"
    repeats = list(book["before"].values)
    first = next(r for r in repeats if r[0] == "seq-write")
    assert first[1] == '=HYPERLINK("http://x")'
    assert book["before"]["B2"].data_type == "s"  # text, not a formula
    assert list(first[6:11]) == before.results[0].metrics["MB/s"].values
    matrix = list(book["before iozone"].values)
    assert matrix[0][1:3] == ("4K", "64K")
    assert [r[0] for r in matrix[1:3]] == ["64K", "1M"]
    assert matrix[1][1] == before.results[1].metrics["write 64K rec 4K MB/s"].median


def test_the_workbook_is_usable_as_it_opens_and_holds_the_interleaved_run(tmp_path):
    before, after = result_set("before", 1.0), result_set("after", 1.2)
    rows, _ = compare_runs(before, after)
    path = write([before, after], tmp_path / "r.xlsx", ["before", "after"], Sheets(rows, interleaved=rows))
    book = load_workbook(path)
    assert book.sheetnames[:2] == ["verdicts", "verdicts, interleaved"]
    for name in ("verdicts", "verdicts, interleaved", "before"):
        sheet = book[name]
        assert sheet.freeze_panes == "A2"
        assert sheet.auto_filter.ref == sheet.dimensions
    verdicts = book["verdicts"]
    header = [c.value for c in verdicts[1]]
    assert verdicts.cell(row=2, column=header.index("change") + 1).number_format == "+0.0%;-0.0%;0.0%"
    assert verdicts.cell(row=2, column=header.index("p") + 1).number_format == "0.000"
    assert [c.value for c in book["verdicts, interleaved"][1]][4:6] == ["A", "B"]
    assert book["before"].cell(row=2, column=7).number_format == "0.0##"  # repeat 1


def test_the_workbook_holds_the_plan_and_the_findings_each_run_once_and_wide_enough(tmp_path):
    """optimize's report: a sheet for the plan (each change's risks named) and for the findings,
    the interleaved A and B once each, a column as wide as its longest target."""
    from nastune.report.html import Page, render
    from nastune.tune.plan import Plan, PlannedChange
    from tests.report.test_report import finding, optimized

    before, a, b = result_set("before", 1.0), result_set("A", 1.0), result_set("B", 1.2)
    rows, notes = compare_runs(before, b)
    done = optimized([], tmp_path / "r.html", runs=[a, b])
    change = {"rule": "smb-signing-cost", "knob": "samba", "target": "global", "key": "server signing"}
    done.plan = Plan(changes=[PlannedChange(id=0, **change, current="required", new="default")])
    page = render(Page([before], rows, notes, findings=[finding("=cmd|' /C calc'!A0")], optimized=done), done.report)
    book = load_workbook(page.with_suffix(".xlsx"))
    assert [n for n in book.sheetnames if "iozone" not in n] == ["verdicts", "plan", "findings", "before", "A", "B"]
    assert list(book["plan"].values)[1][:7] == (
        "smb-signing-cost",
        "samba",
        "global",
        "server signing",
        "required",
        "default",
        "security",
    )
    assert list(book["findings"].values)[1][3] == "=cmd|' /C calc'!A0"
    assert book["findings"]["D2"].data_type == "s"
    longest = max(len(r.target.url) for r in before.results)
    assert book["before"].column_dimensions["B"].width >= min(60, longest)
