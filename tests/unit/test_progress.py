"""Progress in a log: timestamped lines when the step changes and every minute otherwise, with
an estimate of the time left from the pace so far; never a bar that prints only at the end."""

from __future__ import annotations

import io
import re

from rich.console import Console

from nastune.progress import EVERY, Lines, display


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_log_gets_timestamped_lines_with_an_honest_estimate():
    out, clock = io.StringIO(), Clock()
    with Lines(Console(file=out, width=80), clock) as progress:
        task = progress.add_task("benchmark", total=10)
        clock.now += 30
        progress.update(task, description="seq-read @ smb://nas/data")  # a new step: said at once
        progress.advance(task)  # 1 of 10 in 30 s: about 4.5 min left
        clock.now += EVERY
        progress.advance(task)  # a minute later: said again
        progress.advance(task)  # straight after: not said
        progress.remove_task(task)
    lines = out.getvalue().splitlines()
    assert all(re.match(r"\d\d:\d\d:\d\d ", line) for line in lines)
    assert lines[0].endswith("benchmark: 0/10, 0:00:00 elapsed, left unknown")
    assert lines[1].endswith("seq-read @ smb://nas/data: 0/10, 0:00:30 elapsed, left unknown")
    assert lines[2].endswith(": 2/10, 0:01:30 elapsed, about 0:06:00 left")
    assert lines[3].endswith(": 3/10, 0:01:30 elapsed, about 0:03:30 left")
    assert len(lines) == 4


def test_a_terminal_gets_a_bar_and_a_log_gets_lines():
    assert isinstance(display(Console(file=io.StringIO())), Lines)
    assert not isinstance(display(Console(file=io.StringIO(), force_terminal=True)), Lines)


def test_a_long_line_in_a_log_is_not_wrapped():
    from nastune.report import layout

    shown = layout.console()  # under pytest, not a terminal
    shown.file = io.StringIO()
    shown.print("word " * 40)
    assert len(shown.file.getvalue().splitlines()) == 1
