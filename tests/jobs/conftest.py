"""The jobs' tests work on the tuning tests' fixture tree (a NAS's /proc, /sys and /etc)."""

from tests.tune.conftest import root  # noqa: F401  (a fixture, found by name)
