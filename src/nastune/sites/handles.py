"""An apply across an inventory's hosts leaves one journal on each host it changed, named back
to the operator as one `--journal` value: the NAS's journal path, then `CLIENT=PATH` for each
client, separated by commas. A plan that changed only the NAS is its journal path alone."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from nastune import wire
from nastune.conf import safe
from nastune.errors import UsageError
from nastune.remote.agent import Agent, NasError
from nastune.remote.inventory import Inventory, load

NAME = re.compile(safe.HOST_NAME)

Part = tuple[str | None, str]  # (the client, None for the NAS; its journal there)


def joined(parts: list[Part]) -> str:
    return ",".join(path if host is None else f"{host}={path}" for host, path in parts)


def split(handle: str, clients: Collection[str]) -> list[Part]:
    """The journal on each host, in the order they were applied; UsageError names a client the
    inventory does not tune."""
    parts: list[Part] = []
    for item in filter(None, handle.split(",")):
        name, eq, path = item.partition("=")
        if not (eq and NAME.fullmatch(name) and path.startswith("/")):
            parts.append((None, item))
        elif name not in clients:
            raise UsageError(f"--journal names client {name!r}, which the inventory has no nastune_command for")
        else:
            parts.append((name, path))
    if sum(host is None for host, _ in parts) > 1:
        raise UsageError(f"--journal {handle!r}: more than one journal of the NAS")
    return parts


@dataclass(frozen=True)
class Answer:
    """What nastune said on one host: its output and exit status (1 with the reason when the
    host could not be asked)."""

    host: str
    stdout: str
    stderr: str
    code: int


def forwarded(inventory: Path, command: str, journal: str | None, flags: list[str]) -> list[Answer]:
    """The tuning `command` run where its journal is: on the NAS, and on each client `journal`
    names (without one: the NAS's newest, and each client's newest while it holds applied
    settings; the NAS's unless only clients were ever changed), the last applied first when
    rolling back. Every host is asked, whatever another said."""
    inv = load(inventory)
    answers: list[Answer] = []
    parts = split(journal or "", [c.name for c in inv.tuned_clients])
    if not any(host for host, _ in parts):
        parts = [(None, journal or "")]
        if not journal and command in ("verify", "rollback", "confirm", "persist"):
            clients = _still_applied(inv, answers)
            parts = _journaled_nas(inv, answers) + clients if clients else parts
    if command == "persist" and inv.nas.lab and any(host for host, _ in parts):
        raise UsageError("the lab's hosts are gone at a reboot: nothing of theirs to persist")
    order = list(reversed(parts)) if command == "rollback" else parts
    for host, path in order:
        agent = Agent(inv.nas) if host is None else Agent(inv.client(host), "client")
        try:
            result = agent.forward([command, *(["--journal", path] if path else []), *flags])
            answers.append(Answer(agent.name, result.stdout, result.stderr, result.returncode or 0))
        except NasError as e:
            answers.append(Answer(agent.name, "", f"error: {e}\n", 1))
    return answers


def _still_applied(inv: Inventory, answers: list[Answer]) -> list[Part]:
    """Each client that runs nastune and whose newest journal still holds applied settings; a
    client that cannot be asked is said in `answers`."""
    found: list[Part] = []
    for host in inv.tuned_clients:
        newest = _newest(Agent(host, "client"), answers)
        if newest is not None and newest.settings:
            found.append((host.name, newest.journal))
    return found


def _journaled_nas(inv: Inventory, answers: list[Answer]) -> list[Part]:
    """The NAS's newest journal, unless the NAS has none (a plan that changed only clients):
    then `answers` says so, and the clients' journals are the whole command."""
    agent, said = Agent(inv.nas), len(answers)
    if _newest(agent, answers) is not None:
        return [(None, "")]
    if len(answers) == said:  # no journal, rather than a NAS that could not be asked
        answers.append(Answer(agent.name, "", "nothing was applied here: no journal\n", 0))
    return []


def _newest(agent: Agent, answers: list[Answer]) -> wire.Verify | None:
    """The host's newest journal as verify reads it; None when it has none, or when it could
    not be asked (then `answers` says why)."""
    try:
        return agent.verify()
    except NasError as e:
        if "no journal" not in str(e):
            answers.append(Answer(agent.name, "", f"error: {e}\n", 1))
        return None
