"""Ansible's INI inventory format read as Ansible's own `ini` plugin reads it, for controllers
without Ansible: host lines split like a shell (`#` starts a comment), `host:port`, values
that are Python literals becoming numbers or lists; `[group:vars]` lines split at the first
`=` (a `#` there is part of the value); `[group:children]`; a host's variables are its
groups' from the shallowest to the deepest (then by name), its own last.

What only Ansible reads (host ranges, YAML, inventory scripts and directories, group_vars and
host_vars beside the file) is refused naming the construct, never read differently."""

from __future__ import annotations

import ast
import os
import re
import shlex
import warnings
from pathlib import Path

from nastune.errors import UsageError

Vars = dict[str, object]
Members = dict[str, list[tuple[str, Vars]]]  # group -> its hosts (through children), merged vars

_SECTION = re.compile(r"^\[([^\s:\]]+)(?::(\w+))?\]\s*(?:[#;].*)?$")
_YAML = re.compile(r"^(---|[\w.-]+:)$")  # a document start or a bare `group:` key
_HOST_PORT = re.compile(r"^([^:\[\]]+):(\d+)$")
ASK_ANSIBLE = "install ansible-core, and nastune reads it through ansible-inventory"


def refuse_unsupported(path: Path) -> None:
    """ValueError naming what this reader cannot read the way Ansible would."""
    if path.is_dir():
        raise UsageError(f"{path}: an inventory directory; {ASK_ANSIBLE}")
    if os.access(path, os.X_OK):
        raise UsageError(f"{path}: an executable (dynamic) inventory; {ASK_ANSIBLE}")
    kind = {".yml": "YAML", ".yaml": "YAML", ".json": "JSON", ".toml": "TOML"}.get(path.suffix)
    if kind:
        raise UsageError(f"{path}: a {kind} inventory; {ASK_ANSIBLE}")
    for beside in ("group_vars", "host_vars"):
        if (path.parent / beside).is_dir():
            raise UsageError(f"{path.parent / beside}: {beside} beside the inventory; {ASK_ANSIBLE}")


def value(text: str) -> object:
    """A value as Ansible's ini plugin makes it: a Python literal where it is one."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            found = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return str(found) if found is ... or isinstance(found, complex | bytes) else found


class _Groups:
    def __init__(self) -> None:
        self.hosts: dict[str, list[str]] = {"all": [], "ungrouped": []}
        self.children: dict[str, list[str]] = {"all": []}
        self.vars: dict[str, Vars] = {}
        self.host_vars: dict[str, Vars] = {}

    def host(self, group: str, name: str, own: Vars) -> None:
        if name not in self.hosts[group]:
            self.hosts[group].append(name)
        self.host_vars.setdefault(name, {}).update(own)

    def members(self, group: str, seen: frozenset[str] = frozenset()) -> list[str]:
        found = list(self.hosts.get(group, []))
        for child in self.children.get(group, []):
            if child not in seen:
                found += [h for h in self.members(child, seen | {group}) if h not in found]
        return found

    def depth(self, group: str) -> int:
        """The longest path from `all`, as Ansible's Group.depth."""
        parents = [p for p, kids in self.children.items() if group in kids and p != "all"]
        return 1 + max((self.depth(p) for p in parents), default=0)

    def merged(self, host: str) -> Vars:
        groups = [g for g in self.hosts if g != "all" and host in self.members(g)]
        out: Vars = dict(self.vars.get("all", {}))
        for group in sorted(groups, key=lambda g: (self.depth(g), g)):
            out.update(self.vars.get(group, {}))
        return {**out, **self.host_vars.get(host, {})}


def read(text: str, where: str) -> Members:
    """Every group's hosts with their variables; ValueError naming the line."""
    groups = _Groups()
    group, kind = "ungrouped", "hosts"
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        at = f"{where}, line {number}"
        if not line or line[0] in "#;":
            continue
        section = _SECTION.match(line)
        if section:
            group, kind = section[1], section[2] or "hosts"
            if kind not in ("hosts", "children", "vars"):
                raise UsageError(f"{at}: section [{group}:{kind}] has unknown type {kind!r}")
            groups.hosts.setdefault(group, [])
            groups.children.setdefault(group, [])
            if group not in groups.children["all"] and group not in ("all", "ungrouped"):
                groups.children["all"].append(group)
            continue
        if line.startswith("["):
            raise UsageError(f"{at}: {line!r} is not a section header")
        if _YAML.match(line):
            raise UsageError(f"{at}: {line!r} reads as a YAML inventory; {ASK_ANSIBLE}")
        if kind == "vars":
            key, eq, rest = line.partition("=")
            if not eq or not key.strip():
                raise UsageError(f"{at}: expected key=value, got {line!r}")
            groups.vars.setdefault(group, {})[key.strip()] = value(rest.strip())
        elif kind == "children":
            groups.children[group].append(line.split()[0])
        else:
            name, own = _host_line(line, at)
            groups.host(group, name, own)
    for parent, kids in groups.children.items():
        for kid in kids:
            if kid not in groups.hosts:
                raise UsageError(f"{where}: [{parent}:children] names group {kid!r}, which is not defined")
    return {g: [(h, groups.merged(h)) for h in groups.members(g)] for g in groups.hosts}


def _host_line(line: str, at: str) -> tuple[str, Vars]:
    try:
        words = shlex.split(line, comments=True)
    except ValueError as e:
        raise UsageError(f"{at}: {e}") from None
    name = words[0]
    own: Vars = {}
    if "[" in name:
        raise UsageError(f"{at}: {name!r} is a host range; {ASK_ANSIBLE}")
    with_port = _HOST_PORT.match(name)
    if with_port:
        name, own["ansible_port"] = with_port[1], int(with_port[2])
    for word in words[1:]:
        key, eq, rest = word.partition("=")
        if not eq or not key:
            raise UsageError(f"{at}: host {name}: {word!r} is not key=value")
        own[key] = value(rest)
    return name, own
