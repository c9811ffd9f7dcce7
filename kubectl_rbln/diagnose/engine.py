"""The one engine: runs rules in their declared order, then hides what a root cause explains."""

from __future__ import annotations

from collections.abc import Sequence

from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.findings import Finding, dedupe, ordered
from kubectl_rbln.diagnose.registry import Rule


class RuleError(RuntimeError):
    """A rule emitted a slug it did not declare: a bug, caught by the scenario tests."""


def run_rules(ctx: PodContext, rules: Sequence[Rule]) -> list[Finding]:
    """Every rule once, in order; each sees what the earlier ones found (ctx.found)."""
    origin: dict[int, Rule] = {}
    for current in rules:
        new = list(current.run(ctx))
        if not new:
            continue  # most rules on most Pods (`check` runs them over 10,000 Pods)
        for finding in new:
            if finding.slug not in current.emits:
                raise RuleError(f"rule {current.name} emitted undeclared slug {finding.slug}")
            origin[id(finding)] = current
        ctx.found.extend(new)
        if current.blocks_simulation:
            ctx.simulation_blocked = True
    if not ctx.found:
        return []
    return ordered(dedupe(suppress(ctx.found, origin)))


def suppress(findings: list[Finding], origin: dict[int, Rule]) -> list[Finding]:
    """Drop findings that another finding's rule declares redundant (same value where it says so)."""
    hidden: set[int] = set()
    for finding in findings:
        rule = origin.get(id(finding))
        if rule is None:
            continue
        for slug, key in rule.suppresses.items():
            for other in findings:
                same = key is None or other.values.get(key) == finding.values.get(key)
                if other.slug == slug and other is not finding and same:
                    hidden.add(id(other))
    return [f for f in findings if id(f) not in hidden]
