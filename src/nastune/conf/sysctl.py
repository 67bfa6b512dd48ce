"""The boot-time sysctl files: which apply, in what order, and what each line sets.

The order is sysctl.d(5)'s, which systemd-sysctl and procps's `sysctl --system` share: every
*.conf in /etc/sysctl.d, /run/sysctl.d, /usr/local/lib/sysctl.d, /usr/lib/sysctl.d and
/lib/sysctl.d, where a file name in an earlier directory hides the same name in a later one;
the files apply in the lexical order of their names, a later one overriding an earlier one's
key. procps then reads /etc/sysctl.conf last (Debian also links it as 99-sysctl.conf). A key
may be written with '/' for '.', and a leading '-' only silences errors. Only whole lines are
comments: a `#` after a value is part of the value, which the kernel then refuses at boot."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

DIRS = ("/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d")
LAST = "/etc/sysctl.conf"
_INLINE_COMMENT = re.compile(r"\s[#;]")


@dataclass(frozen=True)
class Setting:
    path: str
    line: int
    value: str
    optional: bool = False  # written `-key`: a key the kernel lacks is skipped without an error


def order(listdir: Callable[[str], list[str]], exists: Callable[[str], bool], ours: str | None = None) -> list[str]:
    """The boot-time sysctl files in the order they apply; `ours` (in /etc/sysctl.d) counted as
    present, as it will be once written. `listdir` gives [] for a directory that is not there."""
    chosen: dict[str, str] = {ours.rsplit("/", 1)[1]: ours} if ours else {}
    for directory in DIRS:
        for name in listdir(directory):
            if name.endswith(".conf") and name not in chosen:
                chosen[name] = f"{directory}/{name}"
    ordered = [chosen[name] for name in sorted(chosen)]
    return [*ordered, LAST] if exists(LAST) else ordered


def key(text: str) -> str:
    return text.strip().lstrip("-").strip().replace("/", ".")


def parse(text: str, path: str) -> tuple[dict[str, Setting], list[str]]:
    """Each key a file sets (its last line wins), and the lines that would fail at boot, each
    named with its file and line."""
    found: dict[str, Setting] = {}
    problems: list[str] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        name, sep, value = line.partition("=")
        if not sep:
            problems.append(f"{path} line {n}: {line[:60]!r} has no '=': skipped at boot")
            continue
        value = value.strip()
        if _INLINE_COMMENT.search(value):
            problems.append(
                f"{path} line {n}: {key(name)} = {value[:60]!r}: a comment after a value is part of it, "
                "and the kernel refuses that value at boot"
            )
        found[key(name)] = Setting(path, n, value, name.strip().startswith("-"))
    return found, problems
