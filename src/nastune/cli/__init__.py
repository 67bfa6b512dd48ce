"""The nastune command line: parse, call one function of a stage, print a view. The commands live
in one module per stage; importing them registers them on `app`, in the order `--help` lists them.
`main` is the program: on a NAS that installed nastune without the controller's extra, a command
that needs it says so instead of a traceback."""

import sys

import typer
from rich.text import Text

# isort: off
from nastune.cli.common import app, err
from nastune.cli import facts, lab, tune, bench, optimize, autotune, watch
from nastune.cli.help import tidy

# isort: on

CONTROLLER = ("numpy", "scipy", "plotly", "jinja2", "openpyxl", "optuna")  # pyproject's [controller] extra


def main() -> None:
    command = typer.main.get_command(app)
    tidy(command)
    try:
        command(prog_name="nastune")
    except ModuleNotFoundError as e:
        missing = (e.name or "").split(".")[0]
        if missing not in CONTROLLER:
            raise
        err.print(
            Text.assemble(
                ("error:", "red"), f" this command needs {missing}, which nastune's controller extra installs: "
            ),
            "pip install 'nastune[controller]'",
            soft_wrap=True,
        )
        sys.exit(2)


__all__ = ["app", "autotune", "bench", "facts", "lab", "main", "optimize", "tune", "watch"]
