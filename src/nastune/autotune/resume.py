"""Resuming a killed search: what its killed trial applied is rolled back before anything is
read, so the resumed search inspects, and measures from, the system as it was."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from nastune.errors import Failure
from nastune.remote.agent import NasError
from nastune.tune.system import TuneError

if TYPE_CHECKING:
    from collections.abc import Callable

    from optuna.study import Study

    from nastune.sites.tuner import Tuner

STUDY = "autotune"


class AutotuneError(Failure):
    """The search stopped; the message says what state the system is in and how to finish."""


def recover(out: Path, tuner: Tuner, log: Callable[[str], None]) -> None:
    """After a kill: roll back what the killed trial applied, mark it failed."""
    import optuna

    db = out / "study.db"
    if not db.exists():
        raise AutotuneError(f"--resume: no study in {out} (no {db.name})")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(study_name=STUDY, storage=f"sqlite:///{db}")
    with tuner.hold("autotune"):
        _roll_back_killed(study, tuner, log)


def _roll_back_killed(study: Study, tuner: Tuner, log: Callable[[str], None]) -> None:
    from optuna.trial import TrialState

    applied = _killed_trials_journal(study, tuner)
    if applied:
        log(f"resume: rolling back the killed trial's changes ({applied})")
        try:
            tuner.rollback(applied)
        except (TuneError, NasError) as e:
            raise AutotuneError(
                f"resume: the killed trial's changes could not be rolled back ({e}); `{tuner.undo(applied)}`"
            ) from e
        study.set_user_attr("applied", None)
    study.set_user_attr("applying", None)
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study._storage.set_trial_user_attr(t._trial_id, "failed", "killed while running; rolled back on resume")
        study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)


def _killed_trials_journal(study: Study, tuner: Tuner) -> str | None:
    applied = study.user_attrs.get("applied")
    applying = study.user_attrs.get("applying")
    if not applied and applying:  # killed inside apply: its journal is the one newer than before it
        newest = tuner.newest()
        applied = newest if newest != applying["before"] else None
    return applied
