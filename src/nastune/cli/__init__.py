"""The nastune command line: parse, call one function of a stage, print a view. The commands live
in one module per stage; importing them registers them on `app`, in the order `--help` lists them."""

# isort: off
from nastune.cli.common import app
from nastune.cli import facts, lab, tune, bench, optimize, autotune, watch

# isort: on

__all__ = ["app", "autotune", "bench", "facts", "lab", "optimize", "tune", "watch"]
