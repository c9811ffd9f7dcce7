"""The catalog's data: every finding's severity and words, and every sentence, from catalog.yaml.

The words live in data so that a translator or a reviewer can change them without touching a
rule, and so that a test can prove both languages carry the same placeholders and the same
commands. A rule only chooses a slug (and, where the slug has several, a case) and supplies
values; the render layer fills the words (catalog/fill.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from kubectl_rbln.catalog.fill import placeholders

LANGUAGES = ("en", "ko")
SEVERITIES = ("error", "warning", "info")
CATALOG_FILE = "catalog.yaml"


@dataclass(frozen=True, slots=True)
class Line:
    """One remediation line; `when` names a value that must be truthy (`!name`: falsy) to show it.

    `alt`: the line opens an alternative to the recommended path above it, and `text` says when it
    applies (rendered as the `fix-alternative` sentence), so a fix reads as one path, then labelled
    alternatives."""

    text: str
    when: str | None = None
    each: str | None = None  # a list value: the line repeats once per item, `{each}` bound to the item
    alt: bool = False

    @property
    def conditions(self) -> set[str]:
        """The value names `when` reads (`a,!b`: every one must hold)."""
        return {part.strip().lstrip("!") for part in (self.when or "").split(",") if part.strip()}

    def applies(self, values: dict[str, Any]) -> bool:
        for part in (self.when or "").split(","):
            name = part.strip()
            if not name:
                continue
            negate = name.startswith("!")
            if bool(values.get(name.lstrip("!"))) == negate:
                return False
        return True


@dataclass(frozen=True, slots=True)
class Words:
    """What one slug (or one case of it) says: severity, title, summary, remediation, per language."""

    severity: str
    title: dict[str, str]
    summary: dict[str, str]
    remediation: dict[str, list[Line]]


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One finding slug. `cases` are sub-situations with their own words (fields fall back to the slug's)."""

    slug: str
    severity: str
    title: dict[str, str]
    summary: dict[str, str]
    remediation: dict[str, list[Line]]
    docs: str
    cases: dict[str, Words] = field(default_factory=dict)

    def words(self, case: str | None = None) -> Words:
        """The words of `case`, or of the slug itself when there is no such case."""
        if case and case in self.cases:
            return self.cases[case]
        return Words(self.severity, self.title, self.summary, self.remediation)

    def all_words(self) -> list[tuple[str | None, Words]]:
        return [(None, self.words()), *self.cases.items()]

    def placeholders(self, lang: str, case: str | None = None) -> set[str]:
        """Every placeholder the entry (or one case) uses in `lang`, `when` conditions included."""
        words = self.words(case)
        texts = [words.title.get(lang, ""), words.summary.get(lang, "")]
        texts += [line.text for line in words.remediation.get(lang, [])]
        found = set().union(*(placeholders(text) for text in texts))
        return found | {name for line in words.remediation.get(lang, []) for name in line.conditions}


def _texts(raw: Any, where: str, key: str) -> dict[str, str]:
    if not isinstance(raw, dict) or "en" not in raw:
        raise ValueError(f"catalog {where}: {key} needs at least an 'en' text")
    return {str(lang): str(text).strip() for lang, text in raw.items()}


def _line(raw: Any, where: str) -> Line:
    if isinstance(raw, dict):
        when = str(raw["when"]) if raw.get("when") else None
        if "alt" in raw:
            if not str(raw["alt"]).strip():
                raise ValueError(f"catalog {where}: an alternative needs a label (`alt: when it applies`)")
            return Line(str(raw["alt"]).strip(), when, alt=True)
        if "text" not in raw:
            raise ValueError(f"catalog {where}: a conditional remediation line needs `text`")
        return Line(str(raw["text"]).rstrip(), when, str(raw["each"]) if raw.get("each") else None)
    return Line(str(raw).rstrip())


def _lines(raw: Any, where: str) -> dict[str, list[Line]]:
    if not isinstance(raw, dict) or "en" not in raw:
        raise ValueError(f"catalog {where}: remediation needs at least an 'en' list")
    out: dict[str, list[Line]] = {}
    for lang, lines in raw.items():
        if not isinstance(lines, list):
            raise ValueError(f"catalog {where}: remediation.{lang} must be a list")
        out[str(lang)] = [_line(line, where) for line in lines]
    return out


def _severity(raw: Any, where: str) -> str:
    if raw not in SEVERITIES:
        raise ValueError(f"catalog {where}: severity {raw!r} is not one of {SEVERITIES}")
    return str(raw)


def _case(raw: Any, base: Words, where: str) -> Words:
    if not isinstance(raw, dict):
        raise ValueError(f"catalog {where}: must be a mapping")
    return Words(
        severity=_severity(raw["severity"], where) if "severity" in raw else base.severity,
        title=_texts(raw["title"], where, "title") if "title" in raw else base.title,
        summary=_texts(raw["summary"], where, "summary") if "summary" in raw else base.summary,
        remediation=_lines(raw["remediation"], where) if "remediation" in raw else base.remediation,
    )


def parse_catalog(data: Any) -> dict[str, CatalogEntry]:
    """Validate and convert the `findings:` mapping; a malformed entry is a bug, so it raises."""
    if not isinstance(data, dict):
        raise ValueError("catalog must be a mapping of slug to entry")
    catalog: dict[str, CatalogEntry] = {}
    for slug, raw in data.items():
        if not isinstance(raw, dict):
            raise ValueError(f"catalog entry {slug}: must be a mapping")
        base = Words(
            severity=_severity(raw.get("severity"), slug),
            title=_texts(raw.get("title"), slug, "title"),
            summary=_texts(raw.get("summary"), slug, "summary"),
            remediation=_lines(raw.get("remediation"), slug),
        )
        cases = {
            str(name): _case(body, base, f"{slug}.{name}") for name, body in (raw.get("cases") or {}).items()
        }
        catalog[slug] = CatalogEntry(
            slug=slug,
            severity=base.severity,
            title=base.title,
            summary=base.summary,
            remediation=base.remediation,
            docs=f"docs/findings/{slug}.md",
            cases=cases,
        )
    return catalog


def parse_sentences(data: Any) -> dict[str, dict[str, str]]:
    """The `sentences:` mapping: key -> language -> template (verdicts and other fixed phrases)."""
    if not isinstance(data, dict):
        raise ValueError("catalog sentences must be a mapping")
    return {str(key): _texts(texts, f"sentence {key}", "text") for key, texts in data.items()}


# Run with the yaml module when a catalog file is first read, before any sentence exists: the package
# registers how its sentence type is written (catalog/__init__.py `said_as_yaml_str`).
YAML_TEACHERS: list[Callable[[Any], None]] = []


@lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    # beside this module, read as a plain file: importlib.resources would import zipfile, tempfile and
    # shutil (~10 ms of every command's start) for a package that is always installed as files
    import yaml  # noqa: PLC0415 - English `--help` reads no catalog file: yaml is ~17 ms of its start

    for teach in YAML_TEACHERS:
        teach(yaml)
    text = (Path(__file__).parent / CATALOG_FILE).read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(text, Loader=loader)  # a safe loader, C-accelerated when available
    if not isinstance(data, dict) or "findings" not in data:
        raise ValueError(f"{CATALOG_FILE}: needs a `findings:` mapping")
    return data


@lru_cache(maxsize=1)
def load_catalog() -> dict[str, CatalogEntry]:
    """The packaged findings, parsed once per process."""
    return parse_catalog(_document()["findings"])


@lru_cache(maxsize=1)
def load_sentences() -> dict[str, dict[str, str]]:
    """The packaged sentences, parsed once per process."""
    return parse_sentences(_document().get("sentences") or {})
