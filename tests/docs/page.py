"""docs/your-nas.md as the tests read it: its shell commands in order, and its variables table."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).parents[2] / "docs" / "your-nas.md"


def commands(text: str | None = None) -> list[str]:
    """Every line of the page's ```sh blocks that is a command, in the page's order."""
    text = PAGE.read_text() if text is None else text
    found = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S):
        found += [line.strip() for line in block.splitlines() if line.strip() and not line.strip().startswith("#")]
    return found


def variables_table(text: str | None = None) -> str:
    text = PAGE.read_text() if text is None else text
    start = text.index("| variable |")
    return text[start : text.index("<!-- end of variables -->", start)]
