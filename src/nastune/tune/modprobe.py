"""modprobe.d(5), where a kernel module's parameters are kept across reboots: an `options MODULE
PARAM=VALUE` line is read whenever the module loads, before anything uses it (OpenZFS's own place
for zfs_arc_max and its other parameters; a root on ZFS loads zfs from the initramfs, whose copy
of these files `update-initramfs -u` refreshes). A parameter already set in one of the files is
changed where it is, since a later file's line would win over one of nastune's; else it goes in
the module's own file, made if it does not exist."""

from __future__ import annotations

import re

DIR = "/etc/modprobe.d"
FILE = re.compile(rf"{DIR}/[A-Za-z0-9_.-]{{1,64}}\.conf")
PARAMETER = re.compile(r"/sys/module/([a-z0-9_]{1,64})/parameters/([a-z0-9_]{1,64})")


def module_file(module: str) -> str:
    return f"{DIR}/{module}.conf"


def sets(text: str, module: str, parameter: str) -> bool:
    """Whether a modprobe.d file's text sets `parameter` of `module`."""
    return any(_param(line, module, parameter) is not None for line in text.splitlines())


def _param(line: str, module: str, parameter: str) -> int | None:
    """Where `parameter=` of `module` is among a line's words (None: not there)."""
    words = line.split("#", 1)[0].split()
    if len(words) < 3 or words[0] != "options" or words[1] != module:
        return None
    return next((i for i, w in enumerate(words) if w.partition("=")[0] == parameter), None)


def with_option(text: str, module: str, parameter: str, value: int) -> str:
    """`text` with `parameter=value` for `module`: every line that sets it changed in place
    (comments, other options and other lines kept), or one line added at the end."""
    lines, found = text.splitlines(keepends=True), False
    for n, line in enumerate(lines):
        at = _param(line, module, parameter)
        if at is None:
            continue
        body, _, comment = line.rstrip("\n").partition("#")
        words = body.split()
        words[at] = f"{parameter}={value}"
        lines[n] = " ".join(words) + (f" #{comment}" if comment else "") + "\n"
        found = True
    if found:
        return "".join(lines)
    return text + ("\n" if text and not text.endswith("\n") else "") + f"options {module} {parameter}={value}\n"
