"""ganesha.conf is read and edited with one grammar (conf/ganesha.py's tokens): on the real
configurations of the corpus, every parameter of every EXPORT block reads the same to the
parser and to the editor, setting it changes what the parser reads there and nothing else, and
setting it to what it is leaves the file byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastune.conf import ganesha
from nastune.tune import edits

CORPUS = sorted((Path(__file__).parents[1] / "fixtures" / "corpus" / "ganesha").glob("*.conf*"))


def _exports(text: str) -> dict[str, dict[str, list[str]]]:
    return {b.first("export_id") or "": dict(b.params) for b in ganesha.parse(text).top.children("export")}


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_each_export_s_parameters_are_edited_where_the_parser_reads_them(path):
    text = path.read_text()
    exports = _exports(text)
    for export_id, params in exports.items():
        if not export_id:
            continue
        for key, values in params.items():
            if key == "export_id":  # what finds the block: changing it is no parameter's edit
                continue
            said = edits.ganesha_get(text, export_id, key)
            assert said is not None and [v.strip().strip('"') for v in said.split(",")] == values, (key, said)
            assert edits.ganesha_set(text, export_id, key, said) == text
            edited = edits.ganesha_set(text, export_id, key, "nastune_test")
            after = _exports(edited)
            assert after[export_id][key] == ["nastune_test"]
            assert {k: v for k, v in after[export_id].items() if k != key} == {
                k: v for k, v in params.items() if k != key
            }
            assert {i: p for i, p in after.items() if i != export_id} == {
                i: p for i, p in exports.items() if i != export_id
            }
