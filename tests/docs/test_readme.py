"""The README is read in two minutes: the two set-up commands first, short lines, no table cell
that is a paragraph, and every document it points to exists (the details live there)."""

from __future__ import annotations

import re
from pathlib import Path

TOP = Path(__file__).parents[2]
README = (TOP / "README.md").read_text()


def test_the_readme_is_short_and_opens_with_the_two_commands():
    lines = README.splitlines()
    assert len(lines) <= 120
    assert len(README.split()) <= 1200
    assert max(len(line) for line in lines) <= 120
    block = README.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split()[0] for line in block] == ["./scripts/main", "./scripts/test"]


def test_every_document_the_readme_links_exists():
    linked = re.findall(r"\]\(([^)#]+)\)", README)
    assert linked
    assert [link for link in linked if not (TOP / link).exists()] == []
    assert {p.name for p in (TOP / "docs").glob("*.md")} <= {Path(link).name for link in linked}


def test_no_page_keeps_a_count_of_the_rules_by_hand():
    """A rule is its module and its case: the catalog's size is `nastune explain`'s to show, not
    a number in a page that every new rule would have to edit."""
    from pathlib import Path

    from nastune.rules import all_rules

    top = Path(__file__).parents[2]
    pages = [top / "README.md", top / "CONTRIBUTING.md", *sorted((top / "docs").glob("*.md"))]
    counted = f"{len(all_rules())} rules"
    assert [str(p.relative_to(top)) for p in pages if counted in p.read_text()] == []


def test_the_knobs_docs_tuning_lists_are_the_registry_s():
    """docs/tuning.md names every kind of change a plan may make: the registry's, written by
    `python -m nastune.tune.knobs.listing docs/tuning.md`, not a copy by hand that misses the
    newest (cpu_governor and mount_read_ahead once were)."""
    from pathlib import Path

    from nastune.tune.knobs import KNOBS, listing

    page = (Path(__file__).parents[2] / "docs/tuning.md").read_text()
    assert page == listing.rendered(page)
    assert all(f"| `{kind}` |" in page for kind in KNOBS)
