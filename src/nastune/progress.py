"""Progress of a long run: a bar on a terminal; in a log (output to a file or a pipe), a
timestamped line when the step changes and at least every minute, with what is done, the time
spent, and the time left estimated from the pace so far ("left unknown" until a step has ended).
A bar in a log would print only when the run ends, after minutes of silence."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

EVERY = 60.0  # seconds between two lines of an unchanged step


def display(console: Console) -> Progress | Lines:
    if console.is_terminal:
        return Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("elapsed, about"),
            TimeRemainingColumn(),
            TextColumn("left"),
            console=console,
            transient=False,
        )
    return Lines(console)


@dataclass
class _Task:
    description: str
    total: float
    completed: float
    started: float
    said: float = 0.0


class Lines:
    """The part of rich's Progress that nastune uses, as log lines."""

    def __init__(self, console: Console, clock: Callable[[], float] = time.monotonic):
        self.console, self.clock = console, clock
        self.tasks: dict[TaskID, _Task] = {}
        self.made = 0

    def __enter__(self) -> Lines:
        return self

    def __exit__(self, *exc: Any) -> None:
        for task in self.tasks.values():
            self._say(task)

    def add_task(self, description: str, total: float | None = None, completed: float = 0, **_: Any) -> TaskID:
        task_id, self.made = TaskID(self.made), self.made + 1
        self.tasks[task_id] = _Task(description, total or 0, completed, self.clock())
        self._say(self.tasks[task_id])
        return task_id

    def update(self, task_id: TaskID, description: str | None = None, completed: float | None = None, **_: Any) -> None:
        task = self.tasks[task_id]
        changed = description is not None and description != task.description
        task.description = description if description is not None else task.description
        task.completed = completed if completed is not None else task.completed
        if changed or self.clock() - task.said >= EVERY:
            self._say(task)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        self.update(task_id, completed=self.tasks[task_id].completed + advance)

    def remove_task(self, task_id: TaskID) -> None:
        self._say(self.tasks.pop(task_id))

    def line(self, task: _Task) -> str:
        now = self.clock()
        spent = now - task.started
        done = f"{task.completed:g}/{task.total:g}" if task.total else f"{task.completed:g}"
        if task.total and 0 < task.completed < task.total:
            left = f"about {_span(spent / task.completed * (task.total - task.completed))} left"
        elif task.total and task.completed >= task.total:
            left = "done"
        else:
            left = "left unknown"
        return f"{datetime.now().strftime('%H:%M:%S')} {task.description}: {done}, {_span(spent)} elapsed, {left}"

    def _say(self, task: _Task) -> None:
        task.said = self.clock()
        self.console.print(self.line(task), markup=False, highlight=False, soft_wrap=True)


def _span(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
