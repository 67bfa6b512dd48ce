"""Writes the list of the settings a plan may change into docs/tuning.md, from the registry
(`KNOBS`): each knob's name, what its target is and what a reboot does to it, between the page's
`<!-- knobs -->` and `<!-- end of knobs -->` lines. A setting added is listed by running
`python -m nastune.tune.knobs.listing docs/tuning.md`, never by hand; a test fails until then."""

from __future__ import annotations

import sys
from pathlib import Path

from nastune.tune.knobs import KNOBS

BEGIN, END = "<!-- knobs -->\n", "<!-- end of knobs -->\n"


def table() -> str:
    rows = [f"| `{kind}` | {knob.doc} | {knob.lasts()} |" for kind, knob in sorted(KNOBS.items())]
    return "\n".join(["| knob | what it sets | at a reboot |", "| --- | --- | --- |", *rows]) + "\n"


def rendered(page: str) -> str:
    """`page` with its list of knobs as the registry holds them; ValueError without the markers."""
    head, begin, rest = page.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"the page lacks the lines {BEGIN.strip()} and {END.strip()}")
    return head + BEGIN + table() + END + tail


if __name__ == "__main__":
    path = Path(sys.argv[1])
    path.write_text(rendered(path.read_text()))
    print(f"wrote {path}")
