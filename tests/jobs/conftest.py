"""The jobs' tests work on the tuning tests' fixture tree (a NAS's /proc, /sys and /etc)."""

from tests.tune.conftest import root  # noqa: F401  (a fixture, found by name)


class Answers:
    """An operator who says `plan` to the plan and `action` to each one-off action --allow did
    not name, after seeing the plan; then `keep` to leaving off what changed nothing alone and
    `persist` to persisting (each question asked is recorded)."""

    def __init__(self, plan: bool = True, action: bool = False, keep: bool = False, persist: bool = False):
        self.answers, self.asked = (plan, action, keep, persist), list[str]()

    def decide(self, review):
        self.asked += [s.label for s in review.actions if not s.allowed]
        if not self.answers[0]:
            return None
        return [s for s in review.actions if s.allowed or self.answers[1]]

    def keep(self, kept: list[str], dropped: list[str]) -> bool:
        self.asked.append(f"keep {', '.join(kept)}; drop {', '.join(dropped)}")
        return self.answers[2]

    def persist(self, count: int) -> bool:
        self.asked.append(f"persist {count}")
        return self.answers[3]
