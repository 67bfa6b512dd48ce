"""Backups of the configuration files a plan edits, kept beside the journal: the journal holds
the same content, but a person restoring by hand wants a file to copy back, and a rollback on a
full disk puts a backup back by rename, which needs no new space."""

from __future__ import annotations

import contextlib
import hashlib
import os
import posixpath
from typing import TYPE_CHECKING

from nastune.root import Unavailable

if TYPE_CHECKING:
    from nastune.tune.journal import Journal


def directory(journal: Journal) -> str:
    return journal.path.removesuffix(".jsonl") + ".files"


def path_for(journal: Journal, seq: int, path: str) -> str:
    digest = hashlib.sha256(path.encode()).hexdigest()[:8]
    return f"{directory(journal)}/{seq}-{digest}-{posixpath.basename(path) or 'file'}"


def save(journal: Journal, seq: int, files: dict[str, str | None]) -> None:
    """Copy each original that exists, with its mode and owner (an absent one needs no backup:
    it is removed on undo). Errors are the caller's: apply checked the room for them first."""
    root = journal.system.root
    for path, content in files.items():
        if content is not None:
            copy = path_for(journal, seq, path)
            root.replace(copy, content)
            with contextlib.suppress(OSError, Unavailable):
                info = os.stat(root.host_path(path))
                os.chown(root.host_path(copy), info.st_uid, info.st_gid)
                os.chmod(root.host_path(copy), info.st_mode & 0o7777)


def restore(journal: Journal, seq: int, path: str, content: str) -> bool:
    """Put `path` back by renaming its backup over it (no new space: the rollback of an apply
    that filled the disk), when the backup holds exactly `content` and lies on the same file
    system; False when it cannot, and the caller writes `content` instead."""
    root = journal.system.root
    try:
        copy = path_for(journal, seq, path)
        if root.read(copy) != content:
            return False
        os.rename(root.host_path(copy), root.host_path(path))
    except (OSError, Unavailable):
        return False
    return True


def manual(journal: Journal, seq: int, path: str, content: str | None) -> str:
    """The command that puts `path` back by hand."""
    if content is None:
        return f"rm {path}"
    return f"cp {journal.system.root.host_path(path_for(journal, seq, path))} {path}"
