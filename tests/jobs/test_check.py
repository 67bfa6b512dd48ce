"""Qumulo's regression, caught: on a hand-made two-socket server tree (make_roots.py), pin the NIC's IRQs to its node
(the irq-numa-locality plan), then let an "upgrade" reset them to every CPU. `nastune check`
reports the drift and the finding, its Prometheus metrics (read with prometheus_client's own
parser) show both, and its exit status says so. The timer units pass systemd-analyze verify."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from nastune.report.metrics import registry
from tests.conftest import extracted, run_cli

NAME = __import__("re").compile(r"nastune_[a-z0-9_]+")


@pytest.fixture
def server(tmp_path) -> Path:
    return extracted("two-socket-numa", tmp_path / "root")


def _metrics(path: Path) -> dict[str, list]:
    return {f.name: f.samples for f in text_string_to_metric_families(path.read_text())}


def _pinned(server: Path, tmp_path: Path) -> list[dict]:
    plan = tmp_path / "plan.json"
    run_cli("plan", "--root", str(server), "--only", "irq-numa-locality", "--out", str(plan))
    changes = json.loads(plan.read_text())["changes"]
    assert changes
    assert all(c["knob"] == "irq_affinity" for c in changes)
    run_cli("apply", str(plan), "--root", str(server), "--yes")
    return changes


def test_an_upgrade_that_resets_pinned_irqs_is_caught(server, tmp_path):
    changes = _pinned(server, tmp_path)
    metrics = tmp_path / "textfile" / "nastune.prom"
    calm = run_cli("check", "--root", str(server), "--metrics", str(metrics), check=False)
    assert calm.returncode == 0, calm.stdout + calm.stderr
    assert "irq-numa-locality" not in calm.stdout
    assert _metrics(metrics)["nastune_drifted_settings"][0].value == 0
    irq = changes[0]["target"].split("/")[1]
    (server / f"proc/irq/{irq}/smp_affinity_list").write_text("0-63\n")  # the new driver's default: every CPU
    drifted = run_cli("check", "--root", str(server), "--metrics", str(metrics), check=False)
    assert drifted.returncode == 1
    assert "Traceback" not in drifted.stderr
    assert "DRIFT" in drifted.stdout
    assert f"irq/{irq}" in " ".join(drifted.stdout.split())
    assert "irq-numa-locality" in drifted.stdout
    found = _metrics(metrics)
    assert found["nastune_drifted_settings"][0].value == 1
    assert found["nastune_check_ok"][0].value == 0
    assert [s.labels["setting"] for s in found["nastune_setting_drifted"] if s.value == 1] == [
        s.labels["setting"] for s in found["nastune_setting_drifted"] if f"/{irq}" in s.labels["setting"]
    ]
    assert any(s.labels["rule"] == "irq-numa-locality" for s in found["nastune_findings"])
    assert not list(metrics.parent.glob("*.tmp*"))
    assert list(metrics.parent.iterdir()) == [metrics]  # renamed


def test_metric_names_follow_prometheus_rules(server, tmp_path):
    from nastune.outcomes.check import CheckOutcome

    text = registry(CheckOutcome(findings=[], journal=None)).collect()
    names = [m.name for m in text]
    assert names
    assert all(NAME.fullmatch(n) for n in names)
    assert all(not n.endswith("_total") for n in names)  # gauges, not counters


def test_watch_writes_two_units_that_systemd_accepts_and_removes_only_them(server, tmp_path):
    run_cli("watch", "--install", "--root", str(server), "--every", "daily")
    units = server / "etc/systemd/system"
    written = sorted(p.name for p in units.iterdir())
    assert written == ["nastune-check.service", "nastune-check.timer"]
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    verified = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *(str(units / n) for n in written)],
        capture_output=True,
        text=True,
    )
    assert verified.returncode == 0, verified.stderr
    mine = units / "other.service"
    mine.write_text("[Service]\nExecStart=/bin/true\n")
    (units / "nastune-check.timer").write_text("[Timer]\nOnCalendar=daily\n")  # an admin's own now
    refused = run_cli("watch", "--uninstall", "--root", str(server), check=False)
    assert refused.returncode != 0
    assert "not written by nastune" in refused.stderr
    (units / "nastune-check.timer").unlink()
    run_cli("watch", "--uninstall", "--root", str(server))
    assert sorted(p.name for p in units.iterdir()) == ["other.service"]


def test_the_watch_service_is_confined_benchmarks_as_its_baseline_and_refuses_a_bad_calendar(server, tmp_path):
    units = server / "etc/systemd/system"
    metrics = "/var/lib/prometheus/node-exporter/nastune.prom"
    bad = run_cli("watch", "--install", "--root", str(server), "--every", "hourlyy", check=False)
    assert bad.returncode != 0
    assert "--every 'hourlyy'" in bad.stderr
    assert not units.exists()
    run_cli("watch", "--install", "--root", str(server), "--metrics", metrics)
    service = (units / "nastune-check.service").read_text()
    assert "Nice=10" in service
    assert "WorkingDirectory=%S/nastune" in service
    assert "StateDirectory=nastune" in service
    assert "Wants=network-online.target" in service
    assert (server / "var/lib/prometheus/node-exporter").is_dir()
    run_cli("watch", "--install", "--root", str(server), "--metrics", metrics, "--baseline", "b1")
    benching = (units / "nastune-check.service").read_text()
    assert "--bench" in benching
    assert "Nice=" not in benching
    assert "IOSchedulingClass" not in benching
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    for text in (service, benching):
        path = tmp_path / "nastune-check.service"
        path.write_text(text)
        rated = subprocess.run(
            ["systemd-analyze", "security", "--offline=true", str(path)], capture_output=True, text=True
        )
        level = float(rated.stdout.rsplit("Overall exposure level for nastune-check.service:", 1)[1].split()[0])
        assert level <= 4.0, rated.stdout[-500:]
