"""Console tables that stay readable at any width, and text that is never markup.

Every console nastune prints to has markup off: a mount point like `/mnt/[backup]`, a share
name or a kernel-log line is shown as it is, never interpreted. Styling is explicit (Text with
a style). A `Records` table is drawn as a table when its natural width fits the terminal,
and otherwise one record at a time, each field on its own line, instead of cutting every cell
down to an ellipsis on an 80-column terminal."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

Cell = str | Text


def console(stderr: bool = False) -> Console:
    shown = Console(stderr=stderr, markup=False, highlight=False)
    shown.soft_wrap = not shown.is_terminal  # a log keeps each line whole, never wrapped at 80 columns
    return shown


def styled(text: str, style: str) -> Text:
    return Text(text, style=style)


class Records:
    """Rows of named fields, as a table or (when narrow) as one block per row."""

    def __init__(self, title: str, *columns: str):
        self.title = title
        self.columns = columns
        self.rows: list[tuple[Cell, ...]] = []

    def add_row(self, *cells: Cell) -> None:
        self.rows.append(cells)

    def table(self) -> Table:
        table = Table(title=Text(self.title, style="bold"), title_justify="left")
        for column in self.columns:
            table.add_column(column)
        for row in self.rows:
            table.add_row(*row)
        return table

    def stacked(self) -> Group:
        parts: list = [Text(self.title, style="bold")]
        width = max((len(c) for c in self.columns[1:]), default=0)
        for row in self.rows:
            head = Text.assemble(("- ", "dim"), row[0] if isinstance(row[0], Text) else Text(str(row[0])))
            parts.append(head)
            for column, cell in zip(self.columns[1:], row[1:]):
                value = cell if isinstance(cell, Text) else Text(str(cell))
                if value.plain:
                    parts.append(Text.assemble(f"    {column:<{width}}  ", value))
        return Group(*parts)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = self.table()
        if Measurement.get(console, options.update_width(100_000), table).maximum <= options.max_width:
            yield table
        else:
            yield self.stacked()
