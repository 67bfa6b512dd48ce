"""Real configuration files (tests/fixtures/corpus, with their sources and licences in
SOURCES.md) dropped into a tree where their daemon reads them: inspect, diagnose and plan never
fail; no Ganesha file is lost whole; an smb.conf gets the same findings from the file as from
the real testparm; every plan made of an smb.conf or an exports file applies on the tree and
rolls back byte for byte; the README states these results."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nastune import rules
from nastune.conf import ganesha, samba
from nastune.facts import collect
from nastune.facts.model import Fact
from nastune.facts.smb import _split
from nastune.root import Root
from nastune.tune.plan import from_findings
from tests.conftest import documentation, run_cli

CORPUS = Path(__file__).parents[1] / "fixtures" / "corpus"
PLACES = {
    "ganesha": "etc/ganesha/ganesha.conf",
    "samba": "etc/samba/smb.conf",
    "exports": "etc/exports",
    "sysctl": "etc/sysctl.d/{name}",
}
FILES = sorted(p.relative_to(CORPUS).as_posix() for kind in PLACES for p in (CORPUS / kind).iterdir())


def _tree(tmp_path: Path, name: str) -> tuple[Path, Path]:
    kind, file = name.split("/")
    target = tmp_path / "root" / PLACES[kind].format(name=file if file.endswith(".conf") else file + ".conf")
    target.parent.mkdir(parents=True)
    shutil.copyfile(CORPUS / name, target)
    return tmp_path / "root", target


@pytest.mark.parametrize("name", FILES)
def test_every_file_is_read_diagnosed_and_planned(tmp_path, name):
    root, target = _tree(tmp_path, name)
    facts = collect(Root(root))
    plan = from_findings(rules.evaluate(facts))  # never raises
    assert plan.created
    kind = name.split("/")[0]
    if kind == "ganesha":
        g = facts.nfs_server.ganesha.value if facts.nfs_server else None
        assert g is not None, "the whole file was lost"
        written = len(re.findall(r"^\s*EXPORT\s*\{", target.read_text(), re.I | re.M))
        assert len(g.exports) + sum("EXPORT" in e for e in g.errors) >= written
    elif kind == "samba":
        config = facts.smb.config.value if facts.smb else None
        assert config is not None
        assert config.files == ["/etc/samba/smb.conf"]
    elif kind == "exports":
        assert facts.nfs_server
        assert facts.nfs_server.exports.known
        assert facts.nfs_server.exports.value
    else:  # every setting line read: a key it sets, or a problem named with its line
        where = "/" + target.relative_to(root).as_posix()
        lines = [x for x in target.read_text().splitlines() if x.strip() and x.strip()[0] not in "#;"]
        assert facts.sysctl is not None
        read = [s for s in facts.sysctl.boot.values() if s.file == where] + facts.sysctl.boot_problems
        assert len(read) == len(lines)


@pytest.mark.parametrize("name", [f for f in FILES if f.startswith("samba/")])
def test_an_smb_conf_gets_the_same_findings_from_its_file_as_from_testparm(tmp_path, name):
    if shutil.which("testparm") is None:
        pytest.skip("testparm (samba-common-bin) is not installed")
    root, target = _tree(tmp_path, name)
    facts = collect(Root(root), ["smb"])
    assert facts.smb is not None
    shown = subprocess.run(["testparm", "-s", "-v", str(target)], capture_output=True, text=True, check=True)
    live = facts.model_copy(deep=True)
    assert live.smb is not None
    live.smb.config = Fact(value=_split(samba.parse(shown.stdout), str(target), True), source="testparm")
    smb_rules = [r.id for r in rules.all_rules() if r.area == "smb"]
    from_file = [(f.rule, f.target) for f in rules.evaluate(facts, only=smb_rules)]
    from_testparm = [(f.rule, f.target) for f in rules.evaluate(live, only=smb_rules)]
    assert from_file == from_testparm


@pytest.mark.parametrize("name", [f for f in FILES if f.split("/")[0] in ("samba", "exports")])
def test_every_plan_applies_on_a_tree_and_rolls_back_byte_for_byte(tmp_path, name):
    root, target = _tree(tmp_path, name)
    before = target.read_bytes()
    plan = tmp_path / "plan.json"
    run_cli("plan", "--root", str(root), "--out", str(plan))
    changes = [c for c in json.loads(plan.read_text())["changes"] if c["knob"] in ("samba", "nfs_export")]
    if not changes:
        pytest.skip(f"{name}: nastune recommends no change to it")
    plan.write_text(json.dumps({**json.loads(plan.read_text()), "changes": changes}))
    run_cli("apply", str(plan), "--root", str(root), "--yes", "--accept-risk", "durability")
    assert target.read_bytes() != before
    run_cli("rollback", "--root", str(root))
    assert target.read_bytes() == before


def test_the_readme_states_the_corpus():
    readme = documentation()
    counts = {kind: len(list((CORPUS / kind).iterdir())) for kind in PLACES}
    stated = (
        f"{len(FILES)} real files ({counts['ganesha']} ganesha.conf, {counts['samba']} smb.conf, "
        f"{counts['exports']} exports, {counts['sysctl']} sysctl)"
    )
    assert stated in readme, stated


def test_no_ganesha_file_of_the_corpus_has_a_block_left_out():
    """The samples are nfs-ganesha's own: every block reads."""
    for path in sorted((CORPUS / "ganesha").iterdir()):
        assert ganesha.parse(path.read_text()).errors == [], path.name
