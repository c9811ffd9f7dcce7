"""A rule: one failure family, the slugs only it emits, the slugs it makes redundant.

k8sgpt keeps one analyzer per kind behind one small interface; here each rule also declares
what it hides and whether it leaves nothing to simulate, so the engine (engine.py) alone orders
and suppresses, and adding a finding touches one rule file, the catalog and a docs page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.findings import Finding

RuleFunction = Callable[[PodContext], Iterable[Finding]]


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    emits: tuple[str, ...]  # each slug is emitted by exactly one rule (tests/diagnose/test_registry.py)
    run: RuleFunction
    # slug -> the value both findings must share for the other to be hidden (None: hide every one)
    suppresses: Mapping[str, str | None] = field(default_factory=dict)
    blocks_simulation: bool = False  # when it finds something, later rules see an empty simulation


def rule(
    name: str,
    emits: tuple[str, ...],
    *,
    suppresses: Mapping[str, str | None] | None = None,
    blocks_simulation: bool = False,
) -> Callable[[RuleFunction], Rule]:
    """Declare a rule next to its function: `@rule("layers.device-class", emits=(...))`."""

    def wrap(function: RuleFunction) -> Rule:
        return Rule(name, emits, function, dict(suppresses or {}), blocks_simulation)

    return wrap
