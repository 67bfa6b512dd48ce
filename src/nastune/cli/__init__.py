"""The nastune command line: parse, call one function of a stage, print a view. The commands live
in one module per stage; importing them registers them on `app`, in the order `--help` lists them.
`main` is the program: on a NAS that installed nastune without the controller's extra, a command
that needs it says so instead of a traceback."""

# isort: off
from nastune.cli.common import app
from nastune.cli import facts, lab, tune, bench, optimize, autotune, watch
from nastune.cli.program import main

# isort: on

__all__ = ["app", "autotune", "bench", "facts", "lab", "main", "optimize", "tune", "watch"]
