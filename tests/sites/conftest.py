from tests.tune.conftest import root  # noqa: F401  (a temporary root with every knob's file)
