"""How `--help` reads: one line per command in a list, no Python type names beside options (a
flag takes no value; a value is named for what it is), and the exit codes every command shares.
Applied to the commands Typer builds (its own click), once, before they run; read by duck
typing, as Typer's classes are not the click package's."""

from __future__ import annotations

from typing import Any

# A command's one-line summary in its group's list (its docstring says the rest).
SUMMARIES = {
    "ab": "Measure a plan's effect, A and B interleaved",
    "apply": "Apply a plan: journaled, read back, undone on failure",
    "autotune": "Search the tunables with real measurements",
    "baseline": "Keep results as named baselines and check against them",
    "baseline check": "Compare a new run with a baseline",
    "baseline save": "Store a result file as a baseline",
    "bench": "Measure the NAS end to end",
    "bench list": "The workloads, what they measure, where they run",
    "capture": "Snapshot what the collectors read, for --root",
    "check": "Is this NAS still tuned? Findings, drift, regressions",
    "compare": "Compare result files: verdicts with intervals",
    "confirm": "Keep the network changes of the last apply",
    "diagnose": "Find what makes this NAS slow",
    "explain": "Explain a rule, or list them all",
    "export": "Write a result in another tool's format",
    "inspect": "Show every performance-relevant fact",
    "lab": "The lab: a real NAS and its clients on this machine",
    "lab down": "Remove everything the lab created",
    "lab exec": "Run a command on a lab host",
    "lab inventory": "Print the lab's Ansible inventory",
    "lab reset": "Rebuild the lab in its scenario's state",
    "lab status": "Each part of the lab, up or down",
    "lab up": "Build the lab (idempotent)",
    "optimize": "The main job: diagnose, tune, prove the gain",
    "plan": "Write the recommended changes to a plan file",
    "report": "Write a self-contained HTML report",
    "rollback": "Restore every original value of an applied plan",
    "sample": "Stream this host's /proc samples as JSON lines",
    "verify": "Read back every setting of the last applied plan",
    "watch": "Keep checking, from a systemd timer",
}

EXIT_CODES = (
    "Exit codes: 0 done; 1 what was asked for failed, or found what it checks for (a finding at "
    "--fail-on, drift, a regression, a worse verdict), with nothing left changed; 2 bad input (a "
    "file, field, option or host named in the message), nothing done; 3 a failure left changes "
    "applied that could not be undone, each listed with the command that undoes it by hand; "
    "130 interrupted (the system is left as the message says)."
)


NAMED = {"accept_risk": "RISK", "only": "RULE", "clients": "NAMES"}  # where the option's name is not its value's


def tidy(command: Any, path: str = "") -> None:
    """Summaries from SUMMARIES, and metavars for every option that would show a type name."""
    if path:
        command.short_help = SUMMARIES.get(path, command.short_help)
    for param in command.params:
        if param.param_type_name == "option" and param.metavar is None:
            param.metavar = _metavar(param)
        elif param.param_type_name == "argument":
            param.display_type_rich = lambda ctx: None  # its NAME says what it is; no type beside it
    made = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = made(ctx)  # made per invocation: a flag, so no value to name
        if option is not None:
            option.metavar = ""
        return option

    command.get_help_option = help_option
    for name, sub in getattr(command, "commands", {}).items():
        tidy(sub, f"{path} {name}".strip())


def _metavar(option: Any) -> str | None:
    """Nothing for a flag; the choices for a choice (Typer shows them); otherwise a name in
    capitals: PATH for paths, N for integers, X for reals, the option's own name for the rest."""
    if option.is_flag or option.count:
        return ""
    kind = option.type_descriptor
    if kind.is_choice:
        return None
    if kind.is_path:
        return "PATH"
    element = kind.annotation.__args__[0] if kind.is_list else kind.annotation
    return {int: "N", float: "X"}.get(element, NAMED.get(option.name, (option.name or "value").upper()))
