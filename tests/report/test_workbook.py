"""The XLSX workbook: read back with openpyxl, it holds the verdicts, every repeat of every run
and the IOzone-style matrix as file size by record size; system text stays text."""

from __future__ import annotations

from openpyxl import load_workbook

from nastune.report.workbook import write
from nastune.stats.runs import compare_runs
from tests.report.test_report import result_set


def test_the_workbook_holds_verdicts_repeats_and_the_matrix(tmp_path):
    before, after = result_set("before", 1.0), result_set("after", 1.2)
    before.results[0].target["url"] = '=HYPERLINK("http://x")'
    after.results[0].target["url"] = before.results[0].target["url"]
    rows, _ = compare_runs(before, after)
    book = load_workbook(write([before, after], tmp_path / "r.xlsx", rows, ["before", "after/2"]))
    assert book.sheetnames == ["verdicts", "before", "before iozone", "after_2", "after_2 iozone"]
    verdicts = list(book["verdicts"].values)
    assert verdicts[0][0] == "workload" and len(verdicts) == len(rows) + 1
    seq = next(r for r in verdicts[1:] if r[0] == "seq-write")
    assert seq[6] > 0.15 and seq[10] == "better"
    repeats = list(book["before"].values)
    first = next(r for r in repeats if r[0] == "seq-write")
    assert first[1] == '=HYPERLINK("http://x")' and book["before"]["B2"].data_type == "s"  # text, not a formula
    assert list(first[6:11]) == before.results[0].metrics["MB/s"].values
    matrix = list(book["before iozone"].values)
    assert matrix[0][1:3] == ("4K", "64K") and [r[0] for r in matrix[1:3]] == ["64K", "1M"]
    assert matrix[1][1] == before.results[1].metrics["write 64K rec 4K MB/s"].median


def test_the_workbook_is_usable_as_it_opens_and_holds_the_interleaved_run(tmp_path):
    before, after = result_set("before", 1.0), result_set("after", 1.2)
    rows, _ = compare_runs(before, after)
    path = write([before, after], tmp_path / "r.xlsx", rows, ["before", "after"], interleaved=rows)
    book = load_workbook(path)
    assert book.sheetnames[:2] == ["verdicts", "verdicts, interleaved"]
    for name in ("verdicts", "verdicts, interleaved", "before"):
        sheet = book[name]
        assert sheet.freeze_panes == "A2" and sheet.auto_filter.ref == sheet.dimensions
    verdicts = book["verdicts"]
    header = [c.value for c in verdicts[1]]
    assert verdicts.cell(row=2, column=header.index("change") + 1).number_format == "+0.0%;-0.0%;0.0%"
    assert verdicts.cell(row=2, column=header.index("p") + 1).number_format == "0.000"
    assert [c.value for c in book["verdicts, interleaved"][1]][4:6] == ["A", "B"]
    assert book["before"].cell(row=2, column=7).number_format == "0.0##"  # repeat 1
