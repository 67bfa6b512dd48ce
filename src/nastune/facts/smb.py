"""Samba configuration, global and per share, as the server resolves it (testparm),
or as written in the file when testparm is not available (marked unresolved)."""

from __future__ import annotations

from pydantic import BaseModel

from nastune.conf import samba as samba_conf
from nastune.facts.context import Context
from nastune.facts.model import Fact, Section
from nastune.facts.nfs_server import config_path
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


class SmbFacts(Section):
    running: bool
    config: Fact[SambaConfig]


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
    path = config_path(smbd, ("-s", "--configfile"), DEFAULT)
    resolved = ctx.run(["testparm", "-s", "-v", path])
    if resolved.ok and resolved.stdout.strip():
        try:
            parsed = _split(samba_conf.parse(resolved.stdout), path, True)
            config: Fact[SambaConfig] = Fact(value=parsed, source=resolved.source)
            return SmbFacts(running=bool(smbd), config=config)
        except ValueError as e:
            ctx.warn(resolved.source, str(e))
    raw = ctx.fact(path, lambda text: raw_config(ctx, path, text))
    if raw.known and not resolved.ok:
        ctx.warn(path, f"read unresolved (defaults not filled in): {resolved.reason}")
    return SmbFacts(running=bool(smbd), config=raw)
