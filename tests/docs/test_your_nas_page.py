"""The operator's page keeps to the code: its variables table is the inventory's own list, and
each of its commands is one nastune knows (its lab test runs them all)."""

from __future__ import annotations

import shlex

from nastune.remote import variables
from tests.conftest import run_cli
from tests.docs.page import commands, variables_table


def test_the_variables_table_is_the_inventory_s_list():
    assert variables_table() == variables.table()


def test_every_variable_the_inventory_knows_is_on_the_page():
    shown = variables_table()
    assert all(f"`{name}`" in shown for name in variables.KNOWN)


def test_every_nastune_command_of_the_page_parses():
    found = [shlex.split(line) for line in commands()]
    assert ["./scripts/setup"] in found
    assert len(found) >= 10
    for argv in found:
        if argv[0] == "nastune":
            # --help after the options: parsed as the command would be, nothing run
            assert run_cli(*argv[1:2], "--help").returncode == 0, argv
