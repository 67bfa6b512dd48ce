"""Backups of the configuration files a plan edits, kept beside the journal: the journal holds
the same content, but a person restoring by hand wants a file to copy back."""

from __future__ import annotations

import hashlib
import posixpath

from nastune.root import Unavailable


def directory(journal) -> str:
    return journal.path.removesuffix(".jsonl") + ".files"


def path_for(journal, seq: int, path: str) -> str:
    digest = hashlib.sha256(path.encode()).hexdigest()[:8]
    return f"{directory(journal)}/{seq}-{digest}-{posixpath.basename(path) or 'file'}"


def save(journal, seq: int, files: dict[str, str | None]) -> None:
    """Copy each original that exists (an absent one needs no backup: it is removed on undo)."""
    for path, content in files.items():
        if content is not None:
            try:
                journal.system.root.replace(path_for(journal, seq, path), content)
            except (OSError, Unavailable):
                pass  # the journal line is the record that counts; a backup is a convenience


def manual(journal, seq: int, path: str, content: str | None) -> str:
    """The command that puts `path` back by hand."""
    if content is None:
        return f"rm {path}"
    return f"cp {journal.system.root.host_path(path_for(journal, seq, path))} {path}"
