"""Samba configuration, global and per share, as the server resolves it (testparm),
or as written in the file when testparm is not available (marked unresolved)."""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from nastune.conf import samba as samba_conf
from nastune.facts.context import Context
from nastune.facts.model import Fact, Section
from nastune.facts.nfs_server import config_path
from nastune.facts.shares import ShareLook, look
from nastune.facts.system import Process

AREA = "smb"
DEFAULT = "/etc/samba/smb.conf"


class SambaConfig(BaseModel):
    path: str
    resolved: bool  # True when testparm filled in every default
    defaults: str = ""  # unresolved: where the defaults of unset [global] parameters come from
    files: list[str] = []  # unresolved: the file and the files it includes, as read
    external: list[str] = []  # unresolved: includes not read (per-client, missing, config file)
    globals: dict[str, str]
    shares: dict[str, dict[str, str]]


class Session(BaseModel):
    """A client's session, as smbstatus lists it (Samba names no client's system: its name may)."""

    machine: str  # the name the client gave (remote_machine)
    address: str  # where it connects from (hostname)
    dialect: str


class SmbFacts(Section):
    running: bool
    config: Fact[SambaConfig]
    sessions: Fact[list[Session]] | None = None  # the clients connected now (smbstatus, while smbd runs)
    looks: dict[str, ShareLook] = Field(default_factory=dict)  # by share (facts.shares)


def _split(sections: samba_conf.Sections, path: str, resolved: bool, **read: list[str]) -> SambaConfig:
    """testparm's output as it is; a raw file's [global] over Samba's own defaults."""
    written = sections.get("global", {})
    return SambaConfig(
        path=path,
        resolved=resolved,
        defaults="" if resolved else samba_conf.DEFAULTS_FROM,
        globals=written if resolved else {**samba_conf.defaults(), **written},
        shares={k: v for k, v in sections.items() if k != "global"},
        **read,
    )


def raw_config(ctx: Context, path: str, text: str) -> SambaConfig:
    """The file as smbd reads it, its includes followed under the root; lines Samba skips warned."""
    done = samba_conf.read(path, text, ctx.text, ctx.why)
    for problem in done.problems:
        ctx.warn(path, problem)
    return _split(done.sections, path, False, files=done.files, external=done.external)


def collect(ctx: Context, processes: list[Process]) -> SmbFacts:
    smbd = [p for p in processes if p.name == "smbd"]
    config = _config(ctx, config_path(smbd, ("-s", "--configfile"), DEFAULT))
    sessions = ctx.command_fact(["smbstatus", "-b", "--json"], _sessions) if smbd else None
    return SmbFacts(running=bool(smbd), config=config, sessions=sessions, looks=_looks(ctx, config))


def _sessions(text: str) -> list[Session]:
    listed = json.loads(text).get("sessions") or {}
    return [
        Session(
            machine=s.get("remote_machine", ""), address=s.get("hostname", ""), dialect=s.get("session_dialect", "")
        )
        for s in listed.values()
    ]


def _config(ctx: Context, path: str) -> Fact[SambaConfig]:
    resolved = ctx.run(["testparm", "-s", "-v", path])
    if resolved.ok and resolved.stdout.strip():
        try:
            return Fact(value=_split(samba_conf.parse(resolved.stdout), path, True), source=resolved.source)
        except ValueError as e:
            ctx.warn(resolved.source, str(e))
    raw = ctx.fact(path, lambda text: raw_config(ctx, path, text))
    if raw.known and not resolved.ok:
        ctx.warn(path, f"read unresolved (defaults not filled in): {resolved.reason}")
    return raw


def _looks(ctx: Context, config: Fact[SambaConfig]) -> dict[str, ShareLook]:
    """A glance into each share whose path is one directory for every client (not [homes]'s, nor
    one with a substitution such as %U)."""
    shares = config.value.shares if config.known and config.value else {}
    paths = {name: params.get("path", "") for name, params in shares.items() if name.lower() != "homes"}
    return {name: look(ctx, path) for name, path in paths.items() if path.startswith("/") and "%" not in path}
