"""One bound on the allocator's work for a whole command: selector evaluations and search steps.

Why: the search's step cap was per Pod and selector evaluation (CEL) ran outside it, so `check`
over five Pods on a thousand pathological nodes took minutes. One `WorkBudget` per command
(one Snapshot is one command's reading: `command_budget`) is spent by every Pod's simulation;
what it did not reach is said (NodeResult.reached), never passed over in silence.

A unit is about a microsecond on the 2-core machine: one search step, one memoized selector
answer; a selector evaluated for real (a memo miss) costs CEL_WORK units (23 µs measured,
docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CEL_WORK = 20  # units per real (non-memoized) CEL evaluation
COMMAND_WORK = 4_000_000  # units per command: a few seconds however many Pods and nodes


@dataclass(slots=True)
class WorkBudget:
    """Units left for one command; `not_reached` names the (Pod, node) pairs it never simulated."""

    total: int = COMMAND_WORK
    spent: int = 0
    not_reached: list[tuple[str, str]] = field(default_factory=list)

    @property
    def left(self) -> int:
        return max(self.total - self.spent, 0)

    def spend(self, units: int) -> None:
        self.spent += max(units, 0)


def command_budget(snapshot: Any) -> WorkBudget:
    """The budget of the command reading `snapshot` (built once per command, shared by its Pods)."""
    budget: WorkBudget = snapshot.memo("work-budget", WorkBudget)
    return budget
