"""Room for an apply, checked before its first write: the journal, the backups and the temporary
copy of every file a plan edits must fit, so that a full disk refuses the plan instead of
stopping it half-way. (A disk that fills during the apply is still rolled back: the originals
go back by rename, which needs no new space.)"""

from __future__ import annotations

import os

from nastune.root import Unavailable
from nastune.tune.knobs import Knob
from nastune.tune.plan import PlannedChange
from nastune.tune.system import System, TuneError

LINE = 4096  # a journal line of a change without files, with room to spare
MARGIN = 256 * 1024  # what the file system keeps free after the apply
JSON_GROWTH = 2  # a file's text as a JSON string: escapes can double it


def _filesystem(host: str) -> str:
    """The nearest existing directory of `host` (a journal directory may not exist yet)."""
    path = host
    while not os.path.isdir(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def needs(system: System, changes: list[tuple[Knob, PlannedChange]]) -> dict[str, tuple[int, int]]:
    """Directory -> (bytes, inodes) the changes need on its file system."""
    out: dict[str, list[int]] = {}

    def add(path: str, size: int, inodes: int) -> None:
        host = _filesystem(system.root.host_path(path))
        entry = out.setdefault(host, [0, 0])
        entry[0] += size
        entry[1] += inodes

    journal = f"{system.journal_dir}/x"
    add(journal, LINE * 2, 2)  # the journal and its backups' directory
    for knob, change in changes:
        add(journal, LINE, 0)
        for path in knob.files(system, change):
            size = len((system.read(path) or "").encode()) + len(str(change.new or "").encode())
            add(journal, size * JSON_GROWTH + size, 1)  # its line, its backup
            add(path, size + LINE, 1)  # the temporary copy that replaces it
    return {k: (v[0], v[1]) for k, v in out.items()}


def check(system: System, changes: list[tuple[Knob, PlannedChange]]) -> None:
    """TuneError naming the file system when the changes do not fit, before anything is written."""
    try:
        wanted = needs(system, changes)
    except Unavailable as e:
        raise TuneError(f"nothing was changed: {e}") from e
    for directory, (size, inodes) in wanted.items():
        try:
            fs = os.statvfs(directory)
        except OSError as e:
            raise TuneError(f"nothing was changed: {directory}: {e.strerror}") from e
        free = fs.f_bavail * fs.f_frsize
        if free < size + MARGIN:
            raise TuneError(
                f"nothing was changed: the file system of {directory} has {free // 1024} KiB free; this apply "
                f"needs {(size + MARGIN) // 1024} KiB there (journal, backups, temporary copies): free some space"
            )
        if fs.f_files and fs.f_favail < inodes + 16:
            raise TuneError(
                f"nothing was changed: the file system of {directory} has {fs.f_favail} free inodes; this apply "
                f"needs {inodes + 16}: free some"
            )
