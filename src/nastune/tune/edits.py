"""Edits of configuration text that change one setting and leave every other byte alone."""

from __future__ import annotations

import re
import shlex

from nastune.conf import exports, fstab
from nastune.conf import ganesha as ganesha_conf
from nastune.conf.fstab import EXCLUSIVE  # sync and async exclude each other in exports too


class EditError(ValueError):
    pass


# -- ganesha.conf ---------------------------------------------------------------
# Read with the reader's own tokens (conf/ganesha.params: quotes, comments, nested blocks), the
# last setting of a key the one Ganesha keeps and the one edited.
def _export_span(text: str, export_id: str) -> tuple[int, int]:
    for name, start, end, depth in ganesha_conf.block_spans(text):
        if name.lower() == "export" and depth == 0:
            ids = [p.value for p in ganesha_conf.params(text, start, end) if p.key == "export_id"]
            if ids and ids[-1] == str(export_id):
                return start, end
    raise EditError(f"no EXPORT block with Export_Id = {export_id}")


def _setting(text: str, export_id: str, key: str) -> tuple[int, int, ganesha_conf.Param | None]:
    start, end = _export_span(text, export_id)
    found = [p for p in ganesha_conf.params(text, start, end) if p.key == key.lower()]
    return start, end, (found[-1] if found else None)


def ganesha_get(text: str, export_id: str, key: str) -> str | None:
    param = _setting(text, export_id, key)[2]
    return param.value if param else None


def ganesha_set(text: str, export_id: str, key: str, value: str | None) -> str:
    """Set (or with None remove) a parameter of one EXPORT block, not of its nested blocks."""
    start, end, param = _setting(text, export_id, key)
    if param and param.value == value:
        return text
    if param and value is not None:
        return text[: param.start] + f"{key} = {value};" + text[param.end :]
    if param:
        line_start = text.rfind("\n", 0, param.start) + 1
        line_end = text.find("\n", param.end)
        line_end = len(text) if line_end == -1 else line_end + 1
        if not (text[line_start : param.start] + text[param.end : line_end]).strip():
            return text[:line_start] + text[line_end:]  # the line held only this parameter
        return text[: param.start] + text[param.end :].lstrip(" \t")
    if value is None:
        return text
    close = text.rindex("}", start, end)
    head = text[:close].rstrip(" \t")
    return head + f"    {key} = {value};\n" + text[close:]


# -- /etc/exports -----------------------------------------------------------------
def exports_set(text: str, path: str, host: str, option: str) -> str:
    """Make `option` (sync, async, ...) true for `host` on `path`, dropping its opposite, as
    exports(5) reads the file: an entry may go on over lines that end in a backslash, a path may
    be exported on several lines, a client may have no options of its own (`host`, taking the
    line's `-defaults`) and options may have no host (`(rw)` is `*(rw)`). The client is edited
    where it is written; a bare one gets its own `(option)`, which exportfs applies after the
    defaults."""
    lines = text.splitlines(keepends=True)
    seen = []
    for first, end, body in exports.logical(text):
        try:
            words = shlex.split(body)
        except ValueError:
            continue
        if not words or words[0] != path:
            continue
        seen.append(first + 1)
        for i in range(first, end + 1):
            edited = _client_option(lines[i], host, option, skip_path=i == first)
            if edited is not None:
                lines[i] = edited
                return "".join(lines)
    if seen:
        where = ", ".join(map(str, seen))
        raise EditError(f"/etc/exports line{'s' * (len(seen) > 1)} {where}: {path} has no client {host!r}")
    raise EditError(f"/etc/exports has no entry for {path}")


_WORD = re.compile(r'"[^"]*"|\S+')


def _client_option(line: str, host: str, option: str, skip_path: bool) -> str | None:
    """`line` with `option` set for `host` (written with options, bare, or as `(opts)` for
    `*`), or None when the host is not on it."""
    words = list(_WORD.finditer(line.split("#", 1)[0]))
    for word in words[1:] if skip_path else words:
        token = word.group().removesuffix("\\")  # `host(opts)\` goes on on the next line
        client = exports.CLIENT.match(token)
        if token.startswith("-") or not token or not client or (client.group(1) or "*") != host:
            continue
        old = (client.group(2) or "").split(",")
        options = [o for o in old if o and o not in EXCLUSIVE.get(option, (option,))]
        end = word.start() + len(token)
        return line[: word.start()] + f"{client.group(1)}({','.join(options + [option])})" + line[end:]
    return None


# -- /etc/fstab -----------------------------------------------------------------
def fstab_set(text: str, mountpoint: str, option: str, value: str | None) -> str:
    """`option` set in `mountpoint`'s entry, read and written with fstab's one grammar."""
    edited = fstab.with_option(text, mountpoint, option, value)
    if edited is None:
        raise EditError(f"/etc/fstab has no entry for {mountpoint}")
    return edited
