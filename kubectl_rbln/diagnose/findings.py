"""Findings and the report that carries them: the stable `-o json` schema (docs/output-schema.md).

A finding is one cause, with a stable slug from the catalog, a severity CI can
gate on, the evidence that proves it and the commands that fix it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = "kubectl-rbln/v1"
SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}


@dataclass(slots=True)
class Finding:
    slug: str
    severity: str
    title: str
    detail: str
    evidence: dict[str, Any] = field(default_factory=dict)
    remediation: list[str] = field(default_factory=list)
    docs: str = ""
    recipe: str | None = None  # numa-aligned | numa-unaligned | npu-only | nic-selector

    def to_dict(self) -> dict[str, Any]:
        out = {
            "slug": self.slug,
            "severity": self.severity,
            "title": self.title,
            "detail": self.detail,
            "evidence": self.evidence,
            "remediation": self.remediation,
            "docs": self.docs,
        }
        if self.recipe:
            out["recipe"] = self.recipe
        return out


def reaches(severity: str, threshold: str) -> bool:
    """Does a finding of `severity` fail a run with `--fail-on threshold`?"""
    return SEVERITY_RANK.get(severity, 0) >= SEVERITY_RANK.get(threshold, 3)


def exit_code_for(findings: list[Finding], fail_on: str) -> int:
    return 1 if any(reaches(f.severity, fail_on) for f in findings) else 0


def ordered(findings: list[Finding]) -> list[Finding]:
    """Most important first: severity, then the order the checks found them (root causes first)."""
    indexed = list(enumerate(findings))
    indexed.sort(key=lambda pair: (-SEVERITY_RANK.get(pair[1].severity, 0), pair[0]))
    return [finding for _, finding in indexed]


def dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per (slug, title): two checks may reach the same cause from two sides."""
    seen: set[tuple[str, str]] = set()
    unique = []
    for finding in findings:
        key = (finding.slug, finding.title)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


class _Keep(dict):  # type: ignore[type-arg]
    """Leaves unknown {placeholders} visible instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, values: dict[str, Any]) -> str:
    try:
        return template.format_map(_Keep({k: v for k, v in values.items() if v is not None}))
    except (ValueError, IndexError, AttributeError):
        return template


def build_finding(
    slug: str,
    lang: str,
    values: dict[str, Any],
    *,
    evidence: dict[str, Any] | None = None,
    title: str | None = None,
    detail: str | None = None,
    severity: str | None = None,
    extra_remediation: list[str] | None = None,
    recipe: str | None = None,
    drop_lines: tuple[str, ...] = (),
) -> Finding:
    """A finding whose words come from the catalog (English or Korean), filled with this case's values.

    `drop_lines` leaves out catalog remediation lines that name a branch that does not apply here
    (the CRI-O drop-in on a containerd node, the RDMA driver when the failing term is pciSubsystem).
    """
    from kubectl_rbln.diagnose.catalog import load_catalog  # noqa: PLC0415

    entry = load_catalog()[slug]
    language = lang if lang in entry.title else "en"
    remediation = [
        fill(line, values)
        for line in entry.remediation.get(language, entry.remediation["en"])
        if not any(marker in line for marker in drop_lines)
    ]
    return Finding(
        slug=slug,
        severity=severity or entry.severity,
        title=title or fill(entry.title[language], values),
        detail=detail or fill(entry.summary[language], values),
        evidence=evidence or {},
        remediation=(extra_remediation or []) + remediation,
        docs=entry.docs.replace("docs/", "docs/ko/", 1) if language == "ko" else entry.docs,
        recipe=recipe,
    )
