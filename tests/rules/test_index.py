"""The rule list `explain` reads without importing a rule (rules/index.json) is the registry's:
a rule added, renamed or retitled without `python -m nastune.rules.index` fails here."""

from nastune import rulebook
from nastune.rules import all_rules, index
from tests.conftest import run_cli


def test_the_index_file_is_the_registry_written_out():
    assert rulebook.INDEX.read_text(encoding="utf-8") == index.text()


def test_every_entry_names_its_rule_and_its_doc():
    rules = {r.id: r for r in all_rules()}
    entries = rulebook.entries()
    assert [e.id for e in entries] == [r.id for r in all_rules()]
    for e in entries:
        assert e.doc == rules[e.id].doc
        assert (e.area, e.severity, e.title) == (rules[e.id].area, rules[e.id].severity.name, rules[e.id].title)


def test_explain_imports_no_rule_and_shows_the_page_and_the_list():
    probe = "import sys, nastune.cli; sys.argv = ['nastune', 'explain', 'swappiness-high']\n"
    probe += "try:\n    nastune.cli.main()\nexcept SystemExit:\n    pass\n"
    probe += "print('LOADED' if any(m.startswith(('nastune.rules', 'nastune.facts', 'pydantic')) for m in sys.modules) else 'LIGHT')"
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.rstrip().endswith("LIGHT")
    assert "swappiness high on a file server" in out
    listed = run_cli("explain").stdout
    assert all(r.id in listed for r in all_rules())
    assert run_cli("explain", "no-such-rule", check=False).returncode == 2


def test_the_list_fits_80_columns_without_cutting_a_title_s_word():
    listed = run_cli("explain", env={"COLUMNS": "80"}).stdout.splitlines()
    assert all(len(line) <= 80 for line in listed), max(listed, key=len)
    column = listed[0].index("title")
    words = " ".join(line[column:].strip() for line in listed[1:]).split()  # the title column, its lines joined
    assert " ".join(words) == " ".join(e.title for e in rulebook.entries())
