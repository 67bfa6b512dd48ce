"""A glance into what a share holds, for the rules that depend on who writes there and how big
its directories grow: the traces macOS's Finder leaves (AppleDouble `._` files, .DS_Store) and
the largest directory among the share's top and its first subdirectories. Bounded: the top and
at most SUBDIRS of its directories are listed, each at most root.MAX_ENTRIES names; only counts
and directory paths are kept, never a file's name."""

from __future__ import annotations

import posixpath

from pydantic import BaseModel

from nastune.facts.context import Context
from nastune.root import MAX_ENTRIES, Unavailable

SUBDIRS = 30
# entries in one directory: where large directories begin to hurt a server that matches names
# without case (Jeremy Allison, "Handling Large Directories", the Samba-3 HOWTO)
BIG_DIRECTORY = 10_000
MAC_FILES = (".DS_Store", ".AppleDouble", ".Spotlight-V100", ".fseventsd", ".TemporaryItems", ".apdisk")


class ShareLook(BaseModel):
    """What the glance found in one share."""

    path: str
    looked: int = 0  # directories listed
    mac: int = 0  # macOS's traces: AppleDouble ._ files and the Finder's own (MAC_FILES)
    largest: str = ""  # the directory with the most entries of those listed
    entries: int = 0  # its entries; MAX_ENTRIES + 1: more than nastune lists


def _listed(ctx: Context, path: str) -> list[str] | None:
    """The names in `path`; MAX_ENTRIES + 1 placeholders when it holds more than a listing
    takes (the count is what matters); None when it cannot be listed."""
    try:
        return ctx.root.listdir(path)
    except Unavailable as e:
        return [""] * (MAX_ENTRIES + 1) if e.reason.startswith("more than") else None


def look(ctx: Context, path: str) -> ShareLook:
    seen = ShareLook(path=path)
    top = _listed(ctx, path)
    if top is None:
        return seen
    below = [posixpath.join(path, n) for n in top if n and not n.startswith(".")][: SUBDIRS * 4]
    below = [p for p in below if ctx.root.isdir(p)][:SUBDIRS]
    for where, names in [(path, top), *((p, _listed(ctx, p)) for p in below)]:
        if names is None:
            continue
        seen.looked += 1
        seen.mac += sum(1 for n in names if n.startswith("._") or n in MAC_FILES)
        if len(names) > seen.entries:
            seen.largest, seen.entries = where, len(names)
    return seen
