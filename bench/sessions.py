"""How long one switch of a NAS takes (the apply and the rollback of one setting, as each move of
an interleaved run makes them) through the NAS's session, `nastune serve` there, against a new
nastune process per command, alternating round after round on the same lab: the namespace lab's
NAS and, with --kernel, the kernel lab's guest under emulation.

    .venv/bin/python bench/sessions.py [--repeats 10] [--kernel] [--out bench/results/sessions.json]"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from record import RESULTS, write

os.environ.setdefault("NASTUNE_LAB_PREFIX", "nb")  # its labs beside any lab that is up (read at import)

from nastune.lab import scenario
from nastune.remote import inventory, session
from nastune.remote.agent import Agent
from nastune.sites.lab.kernel import KernelLab
from nastune.sites.lab.lab import Lab
from nastune.tune.plan import Plan, PlannedChange

MODES = ("a process per command", "session")
PLAN = Plan(changes=[PlannedChange(id=1, knob="sysctl", target="net.ipv4.tcp_slow_start_after_idle", new=0)])


def switch(agent: Agent) -> float:
    began = time.monotonic()
    applied = agent.apply(PLAN, frozenset(), 120)
    assert applied.journal, "the setting was already as planned"
    agent.rollback(applied.journal)
    return time.monotonic() - began


def rounds(agent: Agent, repeats: int) -> dict[str, list[float]]:
    """Each round both ways, the first alternating; a warm-up switch each way first."""
    key = tuple(agent.serving)
    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    for n in range(repeats + 1):
        for mode in MODES[:: 1 if n % 2 else -1]:
            if mode == "session":
                session._WITHOUT.discard(key)
            else:
                session._WITHOUT.add(key)
            seconds = switch(agent)
            if n:
                times[mode].append(seconds)
    return times


def measured(name: str, agent: Agent, repeats: int) -> dict:
    times = rounds(agent, repeats)
    medians = {mode: statistics.median(s) for mode, s in times.items()}
    ratio = medians[MODES[0]] / medians["session"]
    print(f"{name}: " + ", ".join(f"{m} {s:.2f} s" for m, s in medians.items()) + f"; {ratio:.1f}x")
    return {"lab": name, "median_s": medians, "ratio": round(ratio, 2), "s": times}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--kernel", action="store_true", help="also the kernel lab's guest")
    parser.add_argument("--out", type=Path, default=RESULTS / "sessions.json")
    args = parser.parse_args()
    labs = []
    with tempfile.TemporaryDirectory() as tmp:
        lab = Lab(Path(tmp) / "lab")
        lab.up(scenario.load("soho", {}), log=lambda m: None)
        try:
            labs.append(measured("namespace lab", Agent(inventory.load(lab.inventory_path).nas), args.repeats))
        finally:
            session.close_all()
            lab.down(log=lambda m: None)
        if args.kernel:
            guest = KernelLab(Path(tmp) / "kernel")
            guest.up(scenario.load("kernel", {}), log=print)
            try:
                labs.append(measured("kernel lab", Agent(inventory.load(guest.inventory_path).nas), args.repeats))
            finally:
                session.close_all()
                guest.down(log=print)
    write("sessions", args.out, what="one switch (apply and rollback of a setting) of the NAS", labs=labs)


if __name__ == "__main__":
    main()
