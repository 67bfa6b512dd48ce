# Copyright: (c) 2026, nastune developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The options every nastune module takes: how to reach nastune on the host."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  command:
    description: How to run nastune on the host (several words allowed, never a shell).
    type: str
    default: nastune
  lab:
    description: The host is the nastune lab's NAS (its tuning commands take --lab).
    type: bool
    default: false
  root:
    description: Act on this directory tree instead of the live system.
    type: str
    default: /
"""
