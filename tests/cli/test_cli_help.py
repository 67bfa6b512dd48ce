"""`--help` reads like a well-kept command line at 80 columns: one line per command in a list,
no Python type names beside options, the exit codes stated, and one spelling per meaning with
the old ones kept working."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import typer

from nastune.cli import app
from tests.conftest import documentation, run_cli


def _commands(command, prefix: str = "") -> dict:
    found: dict = {}
    for name, sub in getattr(command, "commands", {}).items():
        path = f"{prefix} {name}".strip()
        found |= {path: sub, **_commands(sub, path)}
    return found


COMMANDS = _commands(typer.main.get_command(app))
PATHS = list(COMMANDS)


def test_every_command_has_a_one_line_summary():
    short = {path: command.short_help for path, command in COMMANDS.items()}
    assert all(s and len(s) <= 60 and "\n" not in s for s in short.values()), short


@pytest.mark.parametrize("path", ["", *PATHS])
def test_help_at_80_columns_shows_no_type_names(path):
    shown = run_cli(*path.split(), "--help", env={"COLUMNS": "80"}).stdout
    assert not re.search(r"<(bool|str|int|float|path)>|list\[", shown), shown
    assert max(len(line) for line in shown.splitlines()) <= 80


def test_the_exit_codes_are_stated_once_for_every_command_and_on_each_that_can_exit_3():
    shown = " ".join(run_cli("--help", env={"COLUMNS": "80"}).stdout.split())
    assert "Exit codes: 0 done; 1" in shown
    assert "2 bad input" in shown
    assert "3 a failure left changes applied" in shown
    for command in ("apply", "optimize", "ab", "autotune"):
        shown = " ".join(run_cli(command, "--help", env={"COLUMNS": "80"}).stdout.split())
        assert "3 a failure left changes applied" in shown, command
    assert "Exit codes" not in run_cli("inspect", "--help").stdout


def test_a_directory_output_is_out_dir_and_the_old_spelling_still_works():
    for command in ("optimize", "ab", "autotune"):
        shown = run_cli(command, "--help", env={"COLUMNS": "200"}).stdout
        assert re.search(r"--out-dir, ?--out ", shown), shown
    shown = run_cli("rollback", "--help", env={"COLUMNS": "200"}).stdout
    assert "--journal" in shown
    assert "--to" in shown


def test_the_readme_states_the_exit_codes_as_the_help_does():

    from nastune.cli.help import EXIT_CODES

    readme = " ".join(documentation().split())
    assert EXIT_CODES in readme


def test_every_command_shows_examples_that_its_own_parser_accepts():
    """Each example is parsed by the command it shows (options, choices, value types), so an
    example cannot name an option that does not exist; nothing runs."""
    import shlex

    from nastune.cli.examples import EXAMPLES

    assert set(EXAMPLES) == set(PATHS)
    for path, lines in EXAMPLES.items():
        shown = run_cli(*path.split(), "--help", env={"COLUMNS": "80"}).stdout
        assert "Examples:" in shown, path
        assert all(line in shown for line in lines), path
        for line in lines:
            words = shlex.split(line.split("#")[0].split(" > ")[0])
            assert words[: 1 + len(path.split())] == ["nastune", *path.split()], line
            command = COMMANDS[path]
            if getattr(command, "commands", None):
                continue  # a group's examples run its subcommands, each parsed on its own
            with command.make_context(path, words[1 + len(path.split()) :], resilient_parsing=False):
                pass


def test_help_starts_without_rich_or_a_stage():
    """Every nastune process pays the command line's start (each Ansible module call and the
    agent's over SSH too): nastune's and a command's `--help` import neither rich (about a fifth
    of the start) nor any stage; what prints through the console does import rich."""
    probe = "import runpy, sys\nsys.argv = ['nastune', *sys.argv[1:]]\ntry:\n    runpy.run_module('nastune', run_name='__main__')\n"
    probe += "except SystemExit:\n    pass\n"
    probe += "print('HEAVY' if any(m.split('.')[0] == 'rich' or m.startswith(('nastune.facts', 'nastune.rules')) for m in sys.modules) else 'LIGHT', file=sys.stderr)"
    loaded = lambda *argv: subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True).stderr
    assert loaded("--help").endswith("LIGHT\n")
    assert loaded("apply", "--help").endswith("LIGHT\n")
    assert loaded("--version").endswith("HEAVY\n")  # printed through the console: rich
