"""sysctl-boot-line-fails: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.conf import sysctl as sysctl_conf
from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, fail, nas, one


def _boot_line(comment: str) -> Facts:
    f = nas()
    problems = sysctl_conf.parse(f"vm.dirty_ratio = 30{comment}\n", "/etc/sysctl.conf")[1]
    need(f.sysctl).boot_problems = problems
    return f


CASE = Case(
    lambda: _boot_line(" # was 20"),
    lambda: _boot_line(""),
    lambda fs: (one(fs).target == "/etc/sysctl.conf line 1" and "# was 20" in one(fs).message) or fail(fs),
)
