"""/etc/nfs.conf has one grammar (conf/nfs_conf.py), which the facts read and persist writes
with: setting nfsd's threads changes what nfs-utils reads there and nothing else. Checked on
generated files (sections in any order and spelling, comments, a key set twice, a key before any
header) and on the real nfs.conf files among the fixtures and Debian's own."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nastune.conf import nfs_conf
from tests.conftest import real_configs

SECTIONS = ("general", "nfsd", "mountd", "NFSD")
KEYS = ("threads", "port", "vers4.2", "Threads")
LINE = st.one_of(
    st.builds(lambda s, pad: f"[{pad}{s}{pad}]", st.sampled_from(SECTIONS), st.sampled_from(("", " "))),
    st.builds(lambda k, v, eq: f"{k}{eq}{v}", st.sampled_from(KEYS), st.text("0123yn", min_size=1, max_size=3),
              st.sampled_from(("=", " = ", "= "))),
    st.sampled_from(("# threads=99", "; a comment", "", "port=2049 # trailing comment")),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=12), st.booleans(), st.text("0123456789", min_size=1, max_size=3))
def test_setting_a_key_changes_that_key_there_and_nothing_else(lines, newline_at_end, value):
    text = "\n".join(lines) + ("\n" if newline_at_end and lines else "")
    edited = nfs_conf.with_value(text, "nfsd", "threads", value)
    read = lambda t: [
        (e.section, e.key, e.value) for e in nfs_conf.entries(t) if (e.section, e.key) != ("nfsd", "threads")
    ]
    assert nfs_conf.section(edited, "nfsd")["threads"] == value
    assert len([e for e in nfs_conf.entries(edited) if (e.section, e.key) == ("nfsd", "threads")]) == 1
    assert read(edited) == read(text) + (
        [("nfsd", None, "")] if "nfsd" not in {e.section for e in nfs_conf.entries(text)} else []
    )
    assert nfs_conf.with_value(edited, "nfsd", "threads", value) == edited  # as it is: unchanged


REAL = real_configs("etc/nfs.conf", here="/etc/nfs.conf")


@pytest.mark.parametrize(("name", "text"), list(REAL.items()), ids=list(REAL))
def test_nfsd_s_threads_in_a_real_nfs_conf(name, text):
    edited = nfs_conf.with_value(text, "nfsd", "threads", "32")
    assert nfs_conf.section(edited, "nfsd")["threads"] == "32"
    others = lambda t: {
        (e.section, e.key): e.value for e in nfs_conf.entries(t) if e.key and (e.section, e.key) != ("nfsd", "threads")
    }
    assert others(edited) == others(text)
    comments = lambda t: [line for line in t.splitlines() if line.lstrip().startswith(("#", ";"))]
    assert comments(edited) == comments(text)  # Debian's commented defaults stay as they were
