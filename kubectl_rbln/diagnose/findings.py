"""Findings: a slug, its case and the typed values behind it; the catalog writes the words.

A finding is one cause with a stable slug, the values the catalog's sentences need (names,
counts, commands built from the cluster's data), the evidence that proves it, and an optional
recipe. Severity comes from the catalog too, so CI gates on exactly what the docs say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.catalog import RenderedWords, render_words, said_in, severity_of
from kubectl_rbln.catalog.fix import Fix, build_fix
from kubectl_rbln.catalog.fix_text import fix_text_lines

SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}


@dataclass(slots=True)
class Finding:
    slug: str
    values: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)
    case: str | None = None  # one of the slug's catalog cases, when its words differ
    recipe: str | None = None  # numa-aligned | numa-unaligned | npu-only | nic-selector

    @property
    def severity(self) -> str:
        return severity_of(self.slug, self.case)

    def identity(self) -> tuple[str, str | None, str]:
        """What makes two findings the same cause: slug, case and values (never localized text)."""
        return (self.slug, self.case, repr(sorted(self.values.items(), key=lambda kv: kv[0])))

    def words(self, lang: str = "en") -> RenderedWords:
        """This finding's words in `lang`, from the catalog (the one fill function)."""
        return render_words(self.slug, lang, self.values, self.case)

    def fix(self, lang: str = "en") -> Fix:
        """The fix as steps (catalog/fix.py): node-side commands run on the nodes this finding names."""
        return build_fix(self.words(lang).remediation, lang, fix_nodes(self.values))

    def to_dict(self, lang: str = "en") -> dict[str, Any]:
        """The `-o json` shape (docs/output-schema.md), words filled in `lang`."""
        words = self.words(lang)
        fix = build_fix(words.remediation, lang, fix_nodes(self.values)).to_dict()
        out: dict[str, Any] = {
            "slug": self.slug,
            "severity": words.severity,
            "title": words.title,
            "detail": words.summary,
            "evidence": {key: said_in(value, lang) for key, value in self.evidence.items()},
            "remediation": fix_text_lines(fix, lang),
            "fix": fix,
            "docs": words.docs,
        }
        if self.recipe:
            out["recipe"] = self.recipe
        return out


def fix_nodes(values: dict[str, Any]) -> list[str]:
    """The nodes a finding's node-side commands run on: `fix_nodes`, else its `node` or `nodes`."""
    for key in ("fix_nodes", "node", "nodes"):
        value = values.get(key)
        if isinstance(value, str) and value:
            return [value]
        if isinstance(value, (list, tuple)) and value:
            return [str(v) for v in value]
    return []


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
