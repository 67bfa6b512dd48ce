"""For every rule, facts where it fires (with what its findings must say) and facts where it must
not: one module per rule in tests/rules/catalog, named as the rule's own in src/nastune/rules/catalog,
each holding its CASE (built with tests/rules/kit.py)."""

from __future__ import annotations

import importlib
import pkgutil

from tests.rules import catalog
from tests.rules.kit import Case

CASES: dict[str, Case] = {
    module.name.replace("_", "-"): importlib.import_module(f"{catalog.__name__}.{module.name}").CASE
    for module in pkgutil.iter_modules(catalog.__path__)
}
