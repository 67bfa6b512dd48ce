"""How `--help` reads: no Python type names beside options (a flag takes no value; a value is
named for what it is), and the exit codes every command shares.
Applied to the commands Typer builds (its own click), once, before they run; read by duck
typing, as Typer's classes are not the click package's."""

from __future__ import annotations

from functools import partial
from typing import Any

from nastune.cli.examples import EXAMPLES

EXIT_CODES = (
    "Exit codes: 0 done; 1 what was asked for failed, or found what it checks for (a finding at "
    "--fail-on, drift, a regression, a worse verdict), with nothing left changed; 2 bad input (a "
    "file, field, option or host named in the message), nothing done; 3 a failure left changes "
    "applied that could not be undone, each listed with the command that undoes it by hand; "
    "70 a bug in nastune (rerun with -v for its traceback); 130 interrupted (the system is left as "
    "the message says)."
)


STRANDING = {"apply", "optimize", "ab", "autotune"}  # their tuning can end with changes it could not undo: exit 3
NAMED = {"accept_risk": "RISK", "only": "RULE", "clients": "NAMES"}  # where the option's name is not its value's


def tidy(command: Any, path: str = "") -> None:
    """Metavars for every option that would show a type name, one style for arguments (PLAN,
    RESULTS..., [RULE_ID]), and each command's examples."""
    for param in command.params:
        if param.param_type_name == "option" and param.metavar is None:
            param.metavar = _metavar(param)
        elif param.param_type_name == "argument":  # its NAME says what it is; no type beside it
            param.make_metavar = partial(_argument, param)
    if path in EXAMPLES:
        command.epilog = "Examples:\n\n\b\n" + "\n".join(f"  {line}" for line in EXAMPLES[path])
        command.epilog += f"\n\n{EXIT_CODES}" if path in STRANDING else ""
    made = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = made(ctx)  # made per invocation: a flag, so no value to name
        if option is not None:
            option.metavar = ""
        return option

    command.get_help_option = help_option
    for name, sub in getattr(command, "commands", {}).items():
        tidy(sub, f"{path} {name}".strip())


def _argument(argument: Any, *args: Any, **kwargs: Any) -> str:
    """An argument as usage lines show it: its name in capitals, ... when it takes several, in
    brackets when it may be left out."""
    shown = (argument.name or "value").upper() + ("..." if argument.nargs != 1 else "")
    return shown if argument.required else f"[{shown}]"


def _metavar(option: Any) -> str | None:
    """Nothing for a flag; the choices for a choice (Typer shows them); otherwise a name in
    capitals: PATH for paths, N for integers, X for reals, the option's own name for the rest.
    Read from click's parameter type (its `name`), the one part of the option click defines."""
    if option.is_flag or option.count:
        return ""
    kind = option.type.name
    if kind == "choice":
        return None
    known = {"path": "PATH", "int": "N", "int range": "N", "float": "X", "float range": "X"}
    return known.get(kind, NAMED.get(option.name, (option.name or "value").upper()))
