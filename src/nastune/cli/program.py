"""The program `nastune` runs: the command line as `app` registers it, with what a NAS that lacks
the controller's extra and a bug in nastune each print instead of a traceback."""

import sys

import typer

from nastune.cli.common import app, err
from nastune.cli.help import tidy

CONTROLLER = ("numpy", "scipy", "plotly", "jinja2", "openpyxl", "optuna")  # pyproject's [controller] extra


INTERNAL = 70  # EX_SOFTWARE (sysexits.h): a bug in nastune, not in what it was given


def main() -> None:
    command = typer.main.get_command(app)
    tidy(command)
    try:
        command(prog_name="nastune")  # click turns its own exceptions into exit statuses
    except ModuleNotFoundError as e:
        from rich.text import Text

        missing = (e.name or "").split(".")[0]
        if missing not in CONTROLLER:
            raise
        err().print(
            Text.assemble(
                ("error:", "red"), f" this command needs {missing}, which nastune's controller extra installs: "
            ),
            "pip install 'nastune[controller]'",
            soft_wrap=True,
        )
        sys.exit(2)
    except Exception as e:  # a bug: its traceback with -v, one line without
        from rich.text import Text

        if {"-v", "--verbose"} & set(sys.argv[1:]):
            raise
        err().print(
            Text.assemble(("internal error:", "red"), f" {type(e).__name__}: {e}; rerun with -v for the traceback")
        )
        sys.exit(INTERNAL)
