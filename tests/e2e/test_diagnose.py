"""diagnose and explain through the real CLI: golden findings per fixture system, exit codes, errors."""

from __future__ import annotations

import json

import pytest

from nastune.rules import all_rules
from nastune.severity import Severity
from tests.conftest import ROOTS, assert_golden, cli_json, run_cli
from tests.e2e.test_golden import SYSTEMS


@pytest.mark.parametrize("system", SYSTEMS)
def test_diagnose_json_matches_golden(system):
    """What the rules found on each system; how many rules looked is the catalog's, not the
    golden's (a new rule does not rewrite every golden)."""
    found = cli_json("diagnose", "--root", str(ROOTS / f"{system}.tar.gz"), "--json")
    assert found.pop("rules") == len(all_rules())
    assert_golden(f"diagnose-{system}", found)


@pytest.mark.parametrize(
    "system,rules",
    [
        # the seeds' factory state that the soho scenario builds, as the rules see it from a capture
        (
            "lab-soho",
            {
                "ganesha-io-size-small",
                "mount-atime",
                "mtu-jumbo-frames",
                "smb-aio-off",
                "smb-sendfile-off",
                "smb-socket-buffers-fixed",
                "tcp-buffers-below-bdp",
                "xfs-fragmentation",
            },
        ),
        ("lab-modern", {"mtu-jumbo-frames", "smb-sendfile-off"}),
    ],
)
def test_captured_labs_show_their_scenario(system, rules):
    # the captures recorded xfs_db's reading (the exact one), which a tree replays
    out = cli_json("diagnose", "--root", str(ROOTS / f"{system}.tar.gz"), "--json", "--xfs-fragmentation-exact")
    found = {f["rule"] for f in out["findings"]}
    assert rules <= found
    if system == "lab-modern":  # Debian's defaults: none of soho's injected limits
        assert not {"ganesha-io-size-small", "smb-aio-off", "tcp-buffers-below-bdp", "xfs-fragmentation"} & found


def test_findings_are_sorted_by_severity_then_impact_and_name_their_sources():
    out = cli_json("diagnose", "--root", str(ROOTS / "small-nas-raid5.tar.gz"), "--json")
    order = ["info", "low", "medium", "high", "critical"]
    keys = [(order.index(f["severity"]), f["impact"]) for f in out["findings"]]
    assert keys == sorted(keys, reverse=True)
    assert len({s for s, _ in keys}) > 1  # the order is tested across severities
    assert out["schema"] == "nastune.findings/1"
    assert out["rules"] >= 35
    top = {f["rule"] for f in out["findings"][:4]}
    assert {"smb-sync-always", "md-stripe-cache-small"} <= top


def test_fail_on_sets_the_exit_code():
    root = str(ROOTS / "small-nas-raid5.tar.gz")
    assert run_cli("diagnose", "--root", root, "--fail-on", "critical", check=False).returncode == 1  # md1 degraded
    healthy = str(ROOTS / "lab-modern.tar.gz")
    assert run_cli("diagnose", "--root", healthy, "--fail-on", "high", check=False).returncode == 0


def test_min_severity_and_only_filter():
    root = str(ROOTS / "small-nas-raid5.tar.gz")
    high = cli_json("diagnose", "--root", root, "--json", "--min-severity", "high")["findings"]
    assert high
    assert all(f["severity"] in ("high", "critical") for f in high)
    only = cli_json("diagnose", "--root", root, "--json", "--only", "smb-aio-off")["findings"]
    assert {f["rule"] for f in only} == {"smb-aio-off"}


def test_console_output_shows_evidence_change_and_source():
    out = run_cli("diagnose", "--root", str(ROOTS / "two-socket-numa.tar.gz")).stdout
    assert "irq-numa-locality" in out
    assert "evidence:" in out
    assert "change:" in out
    assert "source: Qumulo engineering blog" in out


def test_numa_matrix_feeds_the_numa_rule(tmp_path):
    matrix = tmp_path / "m.json"
    matrix.write_text(json.dumps({"matrix": [[46.0, 6.3], [6.3, 46.0]]}))
    out = cli_json(
        "diagnose",
        "--root",
        str(ROOTS / "two-socket-numa.tar.gz"),
        "--json",
        "--numa-matrix",
        str(matrix),
        "--only",
        "numa-remote-bandwidth",
    )
    assert [f["target"] for f in out["findings"]] == ["node0", "node1"]
    matrix.write_text(json.dumps({"matrix": [[46.0, 6.3]]}))
    proc = run_cli("diagnose", "--numa-matrix", str(matrix), check=False)
    assert proc.returncode == 2
    assert "must be square" in proc.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["diagnose", "--min-severity", "loud"], "--min-severity 'loud': choose from info"),
        (["diagnose", "--only", "no-such-rule"], "unknown rule no-such-rule"),
        (["explain", "no-such-rule"], "unknown rule 'no-such-rule'"),
    ],
)
def test_bad_arguments_are_clear_errors(args, message):
    proc = run_cli(*args, check=False)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_explain_shows_the_rule_doc_and_lists_rules():
    doc = run_cli("explain", "md-stripe-cache-small").stdout
    for part in ("Problem", "Detection", "Fix", "Trade-off", "Source", "8192"):
        assert part in doc
    listing = run_cli("explain").stdout
    assert "irq-numa-locality" in listing
    assert "zfs-dedup-ram" in listing


def test_the_console_lists_the_most_severe_findings_first_across_areas():
    """Data at risk first (a degraded, rebuilding array: data without redundancy), named before
    anything about speed; then the area of the most severe finding, and within it the most severe:
    on this capture md1 degraded, then md0's stripe cache (impact 25 against 20 before, it led)."""
    shown = run_cli("diagnose", "--root", str(ROOTS / "small-nas-raid5.tar.gz")).stdout
    assert shown.splitlines()[0].startswith("data at risk")
    assert shown.splitlines()[1].startswith("md-degraded-or-syncing (md1)")
    lines = [ln for ln in shown.splitlines() if ln.split(" ", 1)[0] in {s.name.upper() for s in Severity}]
    assert lines[0].startswith("CRITICAL md-degraded-or-syncing (md1)")
    assert lines[1].startswith("HIGH     md-stripe-cache-small")
    headings = [ln.split(" ", 1)[0] for ln in shown.splitlines() if ln.endswith("──")]
    assert headings[:2] == ["data", "storage"]
