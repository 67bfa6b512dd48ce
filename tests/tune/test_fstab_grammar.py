"""/etc/fstab has one grammar (conf/fstab.py), which the facts read and the mount-option edits
write with: an edit changes the options of the entry mount(8) uses for that mount point and
nothing else, whatever the spacing, the comments, a path with a space (\\040), an entry that
leaves its options out or a mount point listed twice. Checked on generated files and on the real
fstab files among the fixtures."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nastune.conf import fstab
from tests.conftest import real_configs

POINTS = ("/srv/data", "/srv/my share", "/mnt/nfs")
ENTRY = st.builds(
    lambda spec, point, kind, options, gap: gap.join(
        [spec, point.replace(" ", "\\040"), kind, *([options] if options else []), *(["0", "0"] if options else [])]
    ),
    st.sampled_from(("UUID=1f2e", "/dev/vdb", "10.0.0.1:/srv/data")),
    st.sampled_from(POINTS),
    st.sampled_from(("xfs", "nfs", "ext4")),
    st.sampled_from(("", "defaults", "rw,relatime", "noatime,rsize=8192", "rw,sync")),
    st.sampled_from((" ", "\t", "   ")),
)
LINE = st.one_of(ENTRY, st.sampled_from(("# /srv/data xfs noatime", "", "   ")))


def _read(text: str) -> list[tuple]:
    return [(e.spec, e.file, e.vfstype, e.options) for e in fstab.entries(text)]


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=8), st.sampled_from(POINTS), st.sampled_from(("noatime", "rsize", "async")),
       st.sampled_from(("noatime", "65536", "async", None)))  # fmt: skip
def test_an_option_set_changes_that_entry_s_options_and_nothing_else(lines, point, option, value):
    text = "\n".join(lines) + "\n"
    edited = fstab.with_option(text, point, option, value)
    if fstab.options(text, point) is None:
        assert edited is None
        return
    assert edited is not None
    assert fstab.options(edited, point) == fstab.set_option(fstab.options(text, point) or [], option, value)
    last = max(i for i, e in enumerate(_read(text)) if e[1] == point)
    assert [e for i, e in enumerate(_read(edited)) if i != last] == [e for i, e in enumerate(_read(text)) if i != last]
    assert [line for line in edited.splitlines() if line.startswith("#")] == [
        line for line in text.splitlines() if line.startswith("#")
    ]


REAL = real_configs("etc/fstab")


@pytest.mark.parametrize(("name", "text"), list(REAL.items()), ids=list(REAL))
def test_every_entry_of_a_real_fstab_takes_noatime_alone(name, text):
    for entry in fstab.entries(text):
        edited = fstab.with_option(text, entry.file, "noatime", "noatime")
        assert edited is not None and edited.count("\n") == text.count("\n")
        assert "noatime" in (fstab.options(edited, entry.file) or [])
        changed = [(a, b) for a, b in zip(_read(text), _read(edited), strict=True) if a != b]
        assert len(changed) <= 1 and all(a[:3] == b[:3] for a, b in changed)
