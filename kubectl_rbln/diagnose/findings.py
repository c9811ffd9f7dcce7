"""Findings: a slug, its case and the typed values behind it; the catalog writes the words.

A finding is one cause with a stable slug, the values the catalog's sentences need (names,
counts, commands built from the cluster's data), the evidence that proves it, and an optional
recipe. Severity comes from the catalog too, so CI gates on exactly what the docs say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.catalog import RenderedWords, render_words, severity_of

SCHEMA_VERSION = "kubectl-rbln/v1"
SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}


@dataclass(slots=True)
class Finding:
    slug: str
    values: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)
    case: str | None = None  # one of the slug's catalog cases, when its words differ
    recipe: str | None = None  # numa-aligned | numa-unaligned | npu-only | nic-selector
    legacy: dict[str, Any] | None = None  # TEMPORARY (issue 11 port): words a not-yet-ported check wrote

    @property
    def severity(self) -> str:
        if self.legacy and self.legacy.get("severity"):
            return str(self.legacy["severity"])
        return severity_of(self.slug, self.case)

    def identity(self) -> tuple[str, str | None, str]:
        """What makes two findings the same cause: slug, case and values (never localized text)."""
        return (self.slug, self.case, repr(sorted(self.values.items(), key=lambda kv: kv[0])))

    def words(self, lang: str = "en") -> RenderedWords:
        """This finding's words in `lang`, from the catalog (the one fill function)."""
        legacy = self.legacy or {}
        words = render_words(self.slug, legacy.get("lang", lang), self.values, self.case)
        if not legacy:
            return words
        remediation = [
            line for line in words.remediation if not any(m in line for m in legacy.get("drop_lines", ()))
        ]
        return RenderedWords(
            slug=self.slug,
            severity=self.severity,
            lang=words.lang,
            title=legacy.get("title") or words.title,
            summary=legacy.get("detail") or words.summary,
            remediation=list(legacy.get("extra_remediation") or []) + remediation,
            docs=words.docs,
        )

    def to_dict(self, lang: str = "en") -> dict[str, Any]:
        """The `-o json` shape (docs/output-schema.md), words filled in `lang`."""
        words = self.words(lang)
        out: dict[str, Any] = {
            "slug": self.slug,
            "severity": words.severity,
            "title": words.title,
            "detail": words.summary,
            "evidence": self.evidence,
            "remediation": words.remediation,
            "docs": words.docs,
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
    """Most important first: severity, then the order the rules found them (root causes first)."""
    indexed = list(enumerate(findings))
    indexed.sort(key=lambda pair: (-SEVERITY_RANK.get(pair[1].severity, 0), pair[0]))
    return [finding for _, finding in indexed]


def dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per cause: two rules may reach the same cause from two sides."""
    seen: set[tuple[str, str | None, str]] = set()
    unique = []
    for finding in findings:
        key = finding.identity()
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


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
    """TEMPORARY shim while checks are ported to rules (issue 11); removed when no caller is left."""
    legacy = {
        "lang": lang,
        "title": title,
        "detail": detail,
        "severity": severity,
        "extra_remediation": extra_remediation,
        "drop_lines": drop_lines,
    }
    return Finding(slug, dict(values), evidence or {}, recipe=recipe, legacy=legacy)
