"""The JSON nastune prints for programs: apply, verify, rollback, ab, compare, check, lab status,
optimize's summary and autotune's (inspect, diagnose, plans and result files have their models in facts/,
rules/, tune/plan.py and bench/results.py). Each is a typed model whose first field is its schema
tag, `nastune.<kind>/<version>`; the CLI writes them, the NAS agent and the Ansible modules read
them, and their JSON Schemas are published in schemas/ (report/schemas.py writes them; a test
checks every output against them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator


class Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def dumps(self, indent: int | None = 1) -> str:
        return self.model_dump_json(by_alias=True, indent=indent)


Judged = Literal["better", "worse", "~"]


class Comparison(BaseModel):
    """Two samples of one metric compared (stats.compare computes it): medians with their 95%
    intervals, the relative change with its interval, the rank test's p and the verdict."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    before_median: float
    before_ci: tuple[float, float]
    after_median: float
    after_ci: tuple[float, float]
    change: float  # relative, after/before - 1
    change_ci: tuple[float, float]  # (-inf, inf): too few repeats for an interval; null in JSON
    p_value: float
    verdict: Judged
    min_p: float = 0.0  # the smallest p-value these sample sizes allow: 2 / C(n_a + n_b, n_a)
    detectable: float | None = None  # for "~": the smallest relative change it could have called (None: none)
    sizes: tuple[int, int] = (0, 0)  # repeats before, after

    @field_validator("change_ci", mode="before")
    @classmethod
    def _read(cls, v: object) -> object:
        """An interval JSON gives as null is the infinite one it stands for."""
        if isinstance(v, list | tuple):
            return tuple(math.inf * (1 if i else -1) if x is None else x for i, x in enumerate(v))
        return v

    @field_serializer("change_ci")
    def _strict(self, v: tuple[float, float]) -> list[float | None]:
        """Strict JSON: an interval that does not exist is null, never Infinity."""
        return [x if math.isfinite(x) else None for x in v]

    def interval_text(self) -> str:
        low, high = self.change_ci
        if not (math.isfinite(low) and math.isfinite(high)):
            return "too few repeats for an interval"
        return f"{low:+.1%}..{high:+.1%}"

    def small(self) -> bool:
        """A "~" whose interval excludes no change: the sign is known, the size not beyond the noise floor."""
        low, high = self.change_ci
        return self.verdict == "~" and math.isfinite(low) and math.isfinite(high) and (low > 0 or high < 0)

    def verdict_text(self) -> str:
        """The verdict as a person should read it: a "~" says what it could have seen, or that the
        change has a known sign but no size beyond the noise floor."""
        if self.verdict != "~":
            return self.verdict
        if self.small():
            side = "above" if self.change_ci[0] > 0 else "below"
            return f"~ (small: {side} zero, not clearly beyond the noise floor)"
        if self.detectable is None:
            return "~ (too few repeats to tell)"
        return f"~ (no change larger than about {self.detectable:.0%})"


class Measured(BaseModel):
    """Which metric of which workload on which target."""

    model_config = ConfigDict(extra="forbid")

    workload: str
    target: str
    metric: str
    unit: str
    higher_is_better: bool
    limit: float | None  # the link's goodput in the metric's unit, where one bounds it


class Verdict(Comparison, Measured):
    """One metric of one workload on one target, compared: what the console, the report and the
    JSON (compare.json, ab.json, --json) all read, its fields flat in the JSON."""

    @classmethod
    def of(
        cls, workload: str, target: str, metric: str, unit: str, higher: bool, limit: float | None, c: Comparison
    ) -> Verdict:
        named = {"workload": workload, "target": target, "metric": metric, "unit": unit, "limit": limit}
        return cls(**named, higher_is_better=higher, **dict(c))

    @property
    def name(self) -> str:
        """How notes, controls and withheld settings name the metric: "workload @ target metric"."""
        return f"{self.workload} @ {self.target} {self.metric}"


class Planned(BaseModel):
    model_config = ConfigDict(extra="forbid")

    setting: str
    current: str  # as read before the apply
    new: str
    change: bool  # False: already as planned
    index: int = 0  # its place in the plan
    error: str | None = None  # why it cannot be made there (apply then refuses the whole plan)


class Apply(Wire):
    schema_: Literal["nastune.apply/1"] = Field("nastune.apply/1", alias="schema")
    journal: str | None  # None: nothing was changed
    watchdog: int  # seconds until network changes revert unless confirmed (0: none armed)
    changes: int  # in the plan
    changed: int
    would_change: int
    dry_run: bool
    settings: list[Planned] = []  # each setting of the plan, as diffed before anything changed


class Confirm(Wire):
    schema_: Literal["nastune.confirm/1"] = Field("nastune.confirm/1", alias="schema")
    journal: str
    confirmed: bool  # False: nothing was waiting (no watchdog, or already confirmed)


class Setting(BaseModel):
    model_config = ConfigDict(extra="forbid")

    setting: str
    expected: str
    actual: str
    ok: bool


class Verify(Wire):
    schema_: Literal["nastune.verify/1"] = Field("nastune.verify/1", alias="schema")
    journal: str
    settings: list[Setting]


class NotRestored(BaseModel):
    model_config = ConfigDict(extra="forbid")

    what: str
    reason: str
    manual: str  # what an operator runs to finish by hand


class Rollback(Wire):
    schema_: Literal["nastune.rollback/1"] = Field("nastune.rollback/1", alias="schema")
    journal: str
    restored: int
    unchanged: int
    failures: list[NotRestored]
    outstanding: list[str]  # other journals that still hold applied changes
    dry_run: bool = False  # `restored` counts what would be restored; nothing was changed


class Ab(Wire):
    schema_: Literal["nastune.ab/1"] = Field("nastune.ab/1", alias="schema")
    rows: list[Verdict]
    notes: list[str]
    refused: list[str]  # metrics whose A/A control left A's range: no verdict
    decided: bool
    pairs: int
    seconds: float
    switch_seconds: float


class Compared(BaseModel):
    model_config = ConfigDict(extra="forbid")

    before: str
    after: str
    rows: list[Verdict]
    notes: list[str]


class Compare(Wire):
    schema_: Literal["nastune.compare/1"] = Field("nastune.compare/1", alias="schema")
    comparisons: list[Compared]


class Drift(BaseModel):
    model_config = ConfigDict(extra="forbid")

    setting: str
    expected: str
    actual: str


class Flagged(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule: str
    severity: str
    target: str


class Check(Wire):
    schema_: Literal["nastune.check/1"] = Field("nastune.check/1", alias="schema")
    ok: bool
    journal: str | None
    drift: list[Drift]
    findings: list[Flagged]
    baseline: str | None
    rows: list[Verdict]
    notes: list[str]


class Part(BaseModel):
    model_config = ConfigDict(extra="forbid")

    part: str
    ok: bool
    check: str


class LabStatus(Wire):
    schema_: Literal["nastune.lab-status/1"] = Field("nastune.lab-status/1", alias="schema")
    parts: list[Part]


Standing = Literal["helped", "small", "unresolved", "no verdict"]


class Screened(BaseModel):
    """One rule's own effect: the runs of the screening's design with its settings against those without."""

    model_config = ConfigDict(extra="forbid")

    rule: str
    changes: int
    rows: list[Verdict]
    stopped: str  # why it has no verdict, if it has none
    standing: Standing  # small: offered for removal, unless kept_for
    kept_for: str = ""  # why a rule shown small stays: a gain its rules one by one do not explain


class Together(BaseModel):
    """A metric the plan moved: the whole plan's effect (its interleaved pairs) beside the sum of
    its rules' own effects (relative changes), what is left (with its interval and p), whether
    that is more than the intervals allow, and the rules whose settings can act on the metric."""

    model_config = ConfigDict(extra="forbid")

    metric: str  # workload @ target metric
    bundle: float
    own: float
    rest: float
    rest_ci: tuple[float, float]
    p: float
    unexplained: bool
    reaches: list[str]


class Design(BaseModel):
    """optimize --screen's runs: which rules each switched on (+1) or left off (-1), the order
    they were measured in (indices into `runs`), each metric's value in each run (by
    "workload @ target metric", in the order of `runs`), and the interleaved pairs fitted with
    them (each metric's values without the settings, then with them all)."""

    model_config = ConfigDict(extra="forbid")

    rules: list[str]
    runs: list[list[int]]
    order: list[int]
    values: dict[str, list[float | None]]
    pairs: dict[str, list[list[float | None]]] = {}


class Interleaved(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rows: list[Verdict]
    notes: list[str]
    pairs: int
    seconds: float
    switch_seconds: float
    refused: list[str]
    stopped: str  # why the interleaved run ended early, if it did
    screened: Sequence[Screened] = []  # optimize --screen: each rule's own effect
    design: Design | None = None  # and the runs it was estimated from
    sums: list[Together] = []  # the plan's effect beside its rules' own, on each metric it moved
    unseen: float | None = None  # the smallest own effect the screening finds 8 times in 10 at its spread
    margin: float | None = None  # an own effect shown below this on every moved metric: offered for removal
    idle: list[str] = []  # the rules offered for removal (shown below the margin)
    dropped: bool = False  # and those were left off, keep.json applied instead


class Optimize(Wire):
    """optimize's compare.json: the before/after verdicts (in the interleaved flow, of the one-off
    actions only) and the interleaved ones of the plan's settings."""

    schema_: Literal["nastune.optimize/3"] = Field("nastune.optimize/3", alias="schema")
    flow: Literal["interleaved", "before-after"]  # interleaved: `rows` are the one-off actions' before/after
    rows: list[Verdict]
    notes: list[str]
    failed: list[str]
    interleaved: Interleaved | None
    withheld: list[str] = []  # the metrics a change made worse: the settings were left as they were


class Trial(BaseModel):
    """One trial of autotune's search: the configuration it measured, its score against the base
    (1.0), why it failed or was left out, and what it cost (none: not run here)."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    number: int
    state: str  # optuna's: COMPLETE, PRUNED, FAIL, RUNNING, WAITING
    value: float | None
    config: dict[str, int | float | str] | None
    origin: str  # current settings, rule-based plan, or search
    why: str | None
    seconds: float | None = None
    measuring_seconds: float | None = None


class Finalist(BaseModel):
    model_config = ConfigDict(extra="forbid")

    trial: int
    score: float  # measured again against the base, interleaved


class Autotune(Wire):
    """autotune.json: every trial, the finalists measured again, the winner (if one beat the base)
    and its plan, the verdicts of the winner against the base, each tunable's importance."""

    schema_: Literal["nastune.autotune/1"] = Field("nastune.autotune/1", alias="schema")
    trials: list[Trial]
    best: dict[str, int | float | str] | None  # the winning configuration, None when nothing beat the base
    plan: str | None  # its plan's file
    verdict: str
    durability_trades: list[str]  # the winner's settings that trade crash safety for speed
    beside: list[str]  # the plan's changes every trial after the base made, which no tunable searches
    rows: list[Verdict]
    notes: list[str]
    importance: dict[str, float]
    finalists: list[Finalist]


class Answer(BaseModel):
    """What nastune said on one host: its exit status and its own JSON (None: it printed none)."""

    model_config = ConfigDict(extra="forbid")

    host: str
    exit: int
    output: dict | None


class Across(Wire):
    """A tuning command on the hosts of an inventory (apply, or verify, rollback, confirm and
    persist of a journal spanning the NAS and its clients): the --journal value naming each
    host's journal, and what each host said."""

    schema_: Literal["nastune.across/1"] = Field("nastune.across/1", alias="schema")
    command: str
    journal: str | None  # None: nothing was changed
    hosts: list[Answer]


def tag(model: type[BaseModel]) -> str:
    """The schema tag a model writes, e.g. nastune.apply/1."""
    return str(model.model_fields["schema_"].default)


KINDS: dict[str, type[Wire]] = {
    "apply": Apply,
    "confirm": Confirm,
    "verify": Verify,
    "rollback": Rollback,
    "ab": Ab,
    "compare": Compare,
    "check": Check,
    "lab-status": LabStatus,
    "optimize": Optimize,
    "autotune": Autotune,
    "across": Across,
}
