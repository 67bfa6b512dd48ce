"""Options that several commands share mean the same everywhere: each command that takes
--accept-risk refuses a risk it does not know before it does anything."""

import re

import typer.main
from typer.testing import CliRunner

from nastune.cli import app


def _commands_with(option: str) -> list[list[str]]:
    """The command paths whose parameters include `option`, found in the command tree."""
    found = []

    def walk(command, path):
        if any(option in getattr(p, "opts", []) for p in command.params):
            found.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def test_every_accept_risk_refuses_an_unknown_risk(tmp_path):
    commands = _commands_with("--accept-risk")
    assert {"apply", "optimize", "ab", "autotune"} <= {c[0] for c in commands}
    plan = tmp_path / "plan.json"
    plan.write_text("{}")
    for path in commands:
        args = [*path, *([str(plan)] if path[0] in ("apply", "ab") else []), "--accept-risk", "anything", "--yes"]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, (path, result.output)
        said = re.sub(r"[\s│╭╮╰╯─]+", " ", result.output)  # the error panel wraps its lines
        assert "'anything': the risks that can be accepted are durability, security" in said, path
