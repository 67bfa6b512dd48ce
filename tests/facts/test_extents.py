"""Fragmentation read without freezing: the extent count of each sampled file from the kernel
(FIEMAP), on real files of this machine's file system; links are not followed, a FIFO never
blocks the walk, a tree replays the recorded reading, and /, /usr and /var are never frozen."""

from __future__ import annotations

import json
import os

import pytest

from nastune.facts import Reading, collect, extents
from nastune.recorder import Recorder
from nastune.root import Root


def sparse(path, chunks: int) -> None:
    """A file of `chunks` 4 KiB pieces 1 MiB apart: each piece its own extent."""
    with open(path, "wb") as f:
        for i in range(chunks):
            f.seek(i << 20)
            f.write(os.urandom(4096))
        os.fsync(f.fileno())


@pytest.fixture
def tree(tmp_path):
    sparse(tmp_path / "fragmented.bin", 8)
    (tmp_path / "deeper").mkdir()
    sparse(tmp_path / "deeper" / "whole.bin", 1)
    (tmp_path / "empty").touch()
    (tmp_path / "link").symlink_to(tmp_path / "fragmented.bin")
    os.mkfifo(tmp_path / "fifo")
    return tmp_path


def test_a_sample_counts_each_regular_file_s_extents(tree):
    try:
        with open(tree / "deeper" / "whole.bin", "rb") as f:
            extents.extents(f.fileno())
    except OSError:
        pytest.skip("this file system has no FIEMAP")
    found = json.loads(extents.sample(str(tree)).stdout)
    assert (found["files"], found["extents"], found["ideal"]) == (2, 9, 2)  # not the link, the FIFO, the empty file
    assert json.loads(extents.sample(str(tree), files=1).stdout)["files"] == 1  # bounded


def test_the_reading_is_recorded_and_replayed(tree, tmp_path_factory):
    found = extents.sample(str(tree))
    snapshot = tmp_path_factory.mktemp("snap")
    recorder = Recorder(snapshot)
    live = Root("/", recorder=recorder)
    assert live.probe(extents.key(str(tree)), lambda: found).stdout == found.stdout
    recorder.close()
    replayed = Root(snapshot).probe(extents.key(str(tree)), lambda: pytest.fail("a tree never reads live"))
    assert replayed.stdout == found.stdout
    facts = collect(Root(snapshot), ["mounts"], Reading("sample"))
    assert facts.mounts is not None
    assert facts.mounts.fragmentation == {}  # no XFS in this snapshot


def test_the_exact_reading_never_freezes_the_system_s_own_file_systems(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "mounts").write_text(
        "/dev/sda1 / xfs rw,relatime 0 0\n/dev/sda2 /var xfs rw 0 0\n/dev/md0 /srv/data xfs rw,noatime 0 0\n"
    )
    facts = collect(Root(tmp_path), ["mounts"], Reading("exact"))
    assert facts.mounts is not None
    tried = {at: frag.source.split()[1] for at, frag in facts.mounts.fragmentation.items()}
    assert tried == {"/": "fiemap-sample", "/var": "fiemap-sample", "/srv/data": "xfs_freeze"}
