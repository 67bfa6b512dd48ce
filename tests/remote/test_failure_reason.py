"""A command that fails on a host is reported by its reason: nastune's own error line, not the
plan table it printed before it; another tool's failure by the tail of its output."""

from __future__ import annotations

import sys

import pytest

from nastune.remote.agent import Agent, NasError
from nastune.remote.inventory import Host

TABLE_THEN_ERROR = (
    "import sys; sys.stderr.write('id  setting   now -> new\\n16  mtu lab0  1500 -> 9000\\n"
    "error: nothing was changed; this plan cannot be applied here\\n'); sys.exit(1)"
)


def test_nastune_s_error_line_is_the_reason_not_its_plan_table():
    agent = Agent(Host(name="here", address="127.0.0.1", local=True))
    with pytest.raises(NasError) as failed:
        agent.run([sys.executable, "-c", TABLE_THEN_ERROR], what="apply")
    assert (
        str(failed.value)
        == "apply on NAS here failed (exit 1): error: nothing was changed; this plan cannot be applied here"
    )


def test_another_tool_s_failure_shows_the_tail_of_its_output():
    agent = Agent(Host(name="here", address="127.0.0.1", local=True))
    lines = "import sys; sys.stderr.write('one\\ntwo\\nthree\\nfour\\n'); sys.exit(3)"
    with pytest.raises(NasError, match=r"failed \(exit 3\): two \| three \| four$"):
        agent.run([sys.executable, "-c", lines], what="a tool")
