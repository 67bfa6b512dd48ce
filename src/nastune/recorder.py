"""Recording what a live Root sees into a snapshot tree that a Root replays exactly, with
passwords and secrets removed from configuration text and command output."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path

from nastune.root import META, CommandResult, command_key, logical

# A parameter whose name ends in a secret word ("ldap admin password = x"), not one that
# merely mentions it ("check password script", "passwd chat").
_SECRET_ASSIGNMENT = re.compile(r"(?im)^(\s*(?:[^=#;\n]*\s)?(?:password|passwd|secret|credentials?)\s*=)[^\n]*$")
_SECRET_OPTION = re.compile(r"(?i)\b(password|passwd|pass|secret|credentials)=([^,\s]+)")


def redact(text: str) -> str:
    """Remove passwords and secrets from config text and option strings."""
    text = _SECRET_ASSIGNMENT.sub(r"\1 <redacted>", text)
    return _SECRET_OPTION.sub(r"\1=<redacted>", text)


class Recorder:
    """Writes what a live Root sees into a snapshot tree that a Root replays."""

    def __init__(self, dest: str | os.PathLike):
        self.dest = Path(dest)
        self.dest.mkdir(parents=True, exist_ok=True)
        (self.dest / META / "commands").mkdir(parents=True, exist_ok=True)
        self.errors: dict[str, str] = {}
        self.listings: dict[str, list[str]] = {}

    def _target(self, path: str) -> Path:
        return self.dest.joinpath(*logical(path))

    def file(self, path: str, text: str) -> None:
        target = self._target(path)
        if target.is_symlink():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(redact(text) if path.startswith("/etc/") else text, encoding="utf-8")

    def directory(self, path: str) -> None:
        self._target(path).mkdir(parents=True, exist_ok=True)

    def present(self, path: str, is_dir: bool) -> None:
        """Something was seen to exist without being read: keep an empty stand-in."""
        target = self._target(path)
        if is_dir:
            self.directory(path)
        elif not target.exists() and not target.is_symlink():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()

    def listing(self, path: str, names: list[str]) -> None:
        self.directory(path)
        self.listings[path] = names

    def link(self, path: str, target: str) -> None:
        where = self._target(path)
        if where.is_symlink() or where.exists():
            return
        where.parent.mkdir(parents=True, exist_ok=True)
        where.symlink_to(target)

    def error(self, path: str, reason: str) -> None:
        self.errors[path] = reason

    def command(self, result: CommandResult) -> None:
        data = dataclasses.asdict(result)
        data["stdout"], data["stderr"] = redact(result.stdout), redact(result.stderr)
        out = self.dest / META / "commands" / command_key(result.argv)
        out.write_text(json.dumps(data, indent=1), encoding="utf-8")

    def close(self) -> None:
        meta = self.dest / META
        (meta / "errors.json").write_text(json.dumps(self.errors, indent=1, sort_keys=True))
        (meta / "listings.json").write_text(json.dumps(self.listings, indent=1, sort_keys=True))
