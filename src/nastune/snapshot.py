"""Snapshots: capture what the collectors read on a live system into a tar.gz,
and open a tar.gz (or a directory) as a Root for replay."""

from __future__ import annotations

import contextlib
import json
import os
import re
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from nastune import __version__
from nastune.facts import AREAS, Facts, Reading, collect
from nastune.recorder import Recorder
from nastune.root import META, Root, Unavailable


def capture(out: Path, reading: Reading | None = None) -> Facts:
    """Collect every area from the live system, recording each read, into `out` (tar.gz)."""
    with tempfile.TemporaryDirectory(prefix="nastune-capture-") as tmp:
        tree = Path(tmp) / "root"
        recorder = Recorder(tree)
        facts = collect(Root("/", recorder=recorder), AREAS, reading)
        recorder.close()
        (tree / META / "capture.json").write_text(
            json.dumps(
                {
                    "nastune": __version__,
                    "schema": facts.schema_,
                    "kernel": facts.system.kernel.value if facts.system else None,
                },
                indent=1,
            )
        )
        partial = out.with_name(out.name + ".part")
        with tarfile.open(partial, "w:gz") as tar:
            tar.add(tree, arcname=".")
        os.replace(partial, out)
    return facts


MAX_MEMBERS = 20_000  # a capture of a large server holds a few thousand
MAX_BYTES = 512 * 1024 * 1024
MAX_DEPTH = 64  # directories below the snapshot's top: /sys's deepest device paths are about 20


def _bounded(archive: Path) -> None:
    """Refuse an archive too large, or too deep, to be a snapshot before anything of it is
    written: one pass over its index, no member extracted."""
    count = size = 0
    with tarfile.open(archive) as tar:
        for member in tar:
            count, size = count + 1, size + member.size
            if count > MAX_MEMBERS or size > MAX_BYTES:
                raise Unavailable(
                    str(archive),
                    f"more than {MAX_MEMBERS} members or {MAX_BYTES >> 20} MiB: not a snapshot nastune wrote",
                )
            if member.name.count("/") > MAX_DEPTH:
                shown = member.name[:60] + "..."
                raise Unavailable(str(archive), f"member {shown!r} is more than {MAX_DEPTH} directories deep")


def _extract(archive: Path, dest: Path) -> None:
    """Unpack with tarfile's 'data' filter; symbolic links are made last, so no member
    can be written through one (links may point anywhere: Root never follows them out).
    Bounded in members, bytes and depth first, so a hostile archive cannot fill the disk,
    take hours or exhaust the stack."""
    _bounded(archive)
    links = []
    with tarfile.open(archive) as tar:
        for member in tar:
            if member.issym():
                links.append(member)
            elif member.isreg() or member.isdir():
                tar.extract(member, dest, filter="data")
    for member in links:
        target = Path(os.path.realpath(dest / member.name))  # a loop of links is left as it is, not raised
        parent = target.parent
        if os.path.commonpath([parent, dest.resolve()]) != str(dest.resolve()):
            raise Unavailable(str(archive), f"member {member.name!r} is outside the snapshot")
        parent.mkdir(parents=True, exist_ok=True)
        if not os.path.lexists(dest / member.name):
            os.symlink(member.linkname, dest / member.name)


def _not_a_snapshot(path: Path) -> str:
    """One sentence for a file that is no snapshot, naming what it is when it says (a nastune JSON)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        head = b""
    tag = re.search(rb'"schema":\s*"(nastune\.[a-z-]+/\d+)"', head)
    what = f" (it is a {tag.group(1).decode()} file)" if tag else ""
    return f"not a snapshot archive{what}: give a directory or a .tar.gz that `nastune capture` wrote"


@contextlib.contextmanager
def open_root(path: str | os.PathLike) -> Iterator[Root]:
    """A Root for a directory (live when '/'), or for a snapshot archive unpacked for the call."""
    p = Path(path)
    if p.is_file():
        with tempfile.TemporaryDirectory(prefix="nastune-root-") as tmp:
            try:
                _extract(p, Path(tmp))
            except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
                raise Unavailable(str(p), _not_a_snapshot(p)) from e
            yield Root(tmp)
    elif p.is_dir():
        yield Root(p)
    else:
        raise Unavailable(str(p), "no such directory or snapshot archive")
