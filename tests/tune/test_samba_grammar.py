"""smb.conf has one grammar (conf/samba.entries), which facts read and tune edits with: what an
edit changes is what smbd reads, and nothing else moves. Checked on generated files (headers,
parameters spelt in any case and spacing, comments, continuation lines, CRLF, a parameter
before any header, a parameter set twice) and on the real configurations among the fixtures."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nastune.conf import samba
from tests.conftest import real_configs

SECTIONS = ("global", "data", "homes")
KEYS = ("aio read size", "use sendfile", "read only", "path")
VALUE = st.text("abcxyz019/", min_size=1, max_size=6)


@st.composite
def parameter(draw) -> list[str]:
    """A parameter as people write it: any case and spacing, at times continued over lines."""
    key = draw(st.sampled_from(KEYS))
    spelt = "".join(c.upper() if draw(st.booleans()) else c for c in key).replace(
        " ", draw(st.sampled_from((" ", "  ")))
    )
    indent, value = draw(st.sampled_from(("", "   ", "\t"))), draw(VALUE)
    if draw(st.integers(0, 4)) == 0:
        return [f"{indent}{spelt} = {value} \\", f"      {draw(VALUE)}"]
    return [f"{indent}{spelt}{draw(st.sampled_from(('=', ' = ', ' =')))}{value}"]


@st.composite
def smb_conf(draw) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.integers(0, 5))
        if kind == 0:
            lines.append(
                f"[{draw(st.sampled_from(SECTIONS))}]"
                if draw(st.booleans())
                else f"[ {draw(st.sampled_from(SECTIONS))} ]"
            )
        elif kind == 1:
            lines.append(draw(st.sampled_from(("# a comment = not a parameter", "; use sendfile = no", ""))))
        else:
            lines += draw(parameter())
    eol = draw(st.sampled_from(("\n", "\r\n")))
    return eol.join(lines) + (eol if lines and draw(st.booleans()) else "")


def _read(text: str) -> dict[str, dict[str, str]]:
    return samba.read("smb.conf", text, lambda path: None, str).sections


@settings(max_examples=300, deadline=None)
@given(smb_conf(), st.sampled_from(SECTIONS), st.sampled_from(KEYS), st.none() | VALUE)
def test_an_edit_changes_what_smbd_reads_there_and_nothing_else(text, section, key, value):
    before = _read(text)
    assert samba.param(text, section, key) == before.get(section, {}).get(key)  # one grammar
    assert samba.with_param(text, section, key, samba.param(text, section, key)) == text  # as it is: unchanged
    after = _read(samba.with_param(text, section, key, value))
    assert after.get(section, {}).get(key) == value
    strip = lambda read: {
        (s, k): v for s, params in read.items() for k, v in params.items() if (s, k) != (section, key)
    }
    assert strip(after) == strip(before)


REAL = real_configs("/smb.conf", "/smb4.conf", here="/etc/samba/smb.conf")


@pytest.mark.parametrize(("name", "text"), list(REAL.items()), ids=list(REAL))
def test_every_parameter_of_a_real_configuration_is_edited_in_place(name, text):
    before = _read(text)
    assert before, name
    for section, params in before.items():
        for key, value in params.items():
            assert samba.with_param(text, section, key, value) == text
            changed = samba.with_param(text, section, key, "nastune-test")
            assert changed.count("\n") == text.count("\n")  # the line replaced, not added
            after = _read(changed)
            assert after[section][key] == "nastune-test"
            assert {s: {k: v for k, v in p.items() if (s, k) != (section, key)} for s, p in after.items()} == {
                s: {k: v for k, v in p.items() if (s, k) != (section, key)} for s, p in before.items()
            }
