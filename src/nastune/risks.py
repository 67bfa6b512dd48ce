"""The guarantees a plan can trade for speed."""

from __future__ import annotations

from typing import Literal

Risk = Literal["durability", "security", "compatibility"]

# The guarantees a change can trade for speed, each accepted by name with --accept-risk, and what
# accepting it means.
RISKS = {
    "durability": "These changes move a crash-safety trade: towards speed, data acknowledged to clients can be "
    "lost if the server crashes or loses power before it reaches the disks; back from a speed the "
    "operator chose (async to sync), writes wait for the disks and can be several times slower.",
    "security": "These changes weaken what protects data on the network: without signing a man in the middle "
    "can alter what clients read and write; without encryption anyone on the path can read it.",
    "compatibility": "These changes alter what clients see of their files: with names matched by case, a "
    "Windows program that opens a name in another case than it was written finds nothing.",
}
Risks = frozenset[str]  # the risks an operator accepted
