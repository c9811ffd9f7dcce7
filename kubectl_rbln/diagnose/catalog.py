"""The findings catalog: what every finding says, in English and Korean, loaded from catalog.yaml.

The words live in data so that a translator or a reviewer can change them without touching a
check, and so that a test can prove both languages carry the same placeholders and the same
commands. A check only chooses a slug and supplies values; `render` does the rest.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

LANGUAGES = ("en", "ko")
SEVERITIES = ("error", "warning", "info")
CATALOG_FILE = "catalog.yaml"

# `{name}` is a placeholder; `{{` and `}}` are literal braces (as in str.format, so a jq or
# jsonpath command survives either renderer). Anything else in braces is left alone.
_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One finding's words. `title`, `summary`, `remediation` are keyed by language."""

    slug: str
    severity: str
    title: dict[str, str]
    summary: dict[str, str]
    remediation: dict[str, list[str]]
    docs: str

    def placeholders(self, lang: str) -> set[str]:
        """Every placeholder the entry uses in `lang`, for the tests and for checks' self-checks."""
        texts = [self.title.get(lang, ""), self.summary.get(lang, ""), *self.remediation.get(lang, [])]
        return set().union(*(placeholders(text) for text in texts))


@dataclass(frozen=True, slots=True)
class RenderedEntry:
    """A catalog entry in one language with this case's values filled in."""

    slug: str
    severity: str
    lang: str
    title: str
    summary: str
    remediation: list[str]
    docs: str


def placeholders(template: str) -> set[str]:
    """The `{name}` placeholders of one template (escaped braces excluded)."""
    return {match.group(1) for match in _TOKEN.finditer(template) if match.group(1)}


def fill(template: str, values: Mapping[str, Any]) -> str:
    """Fill `{name}` from `values`; unknown names stay visible as `{name}`; never raises.

    A visible `{node}` in the output is better than a crash or a silently wrong sentence: the
    user still gets the command, and the tests catch the check that forgot a value.
    """

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        value = values.get(match.group(1))
        if value is None:
            return token
        try:
            if isinstance(value, (list, tuple, set, frozenset)):
                return ", ".join(str(item) for item in value)
            return str(value)
        except Exception:  # a value whose __str__ raises must not cost the user the finding
            return token

    return _TOKEN.sub(replace, template)


def render(entry: CatalogEntry, lang: str = "en", **values: Any) -> RenderedEntry:
    """The entry in `lang` (English when that language is missing), placeholders filled."""
    language = lang if lang in entry.title else "en"
    remediation = entry.remediation.get(language) or entry.remediation.get("en", [])
    return RenderedEntry(
        slug=entry.slug,
        severity=entry.severity,
        lang=language,
        title=fill(entry.title.get(language, entry.slug), values),
        summary=fill(entry.summary.get(language, ""), values),
        remediation=[fill(line, values) for line in remediation],
        docs=entry.docs,
    )


def missing_values(entry: CatalogEntry, values: Mapping[str, Any], lang: str = "en") -> set[str]:
    """Placeholders of `entry` that `values` does not fill: a check's tests assert this is empty."""
    return {name for name in entry.placeholders(lang) if values.get(name) is None}


def pick_language(flag: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """`--lang en|ko` wins; otherwise Korean when the locale (LC_ALL, LC_MESSAGES, LANG) starts with `ko`.

    The first non-empty locale variable decides, in POSIX precedence order, so `LC_ALL=C` with
    `LANG=ko_KR.UTF-8` gives English, as every other program on that terminal would.
    """
    if flag:
        code = flag.strip().lower()
        return code if code in LANGUAGES else "en"
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "ko" if value.lower().startswith("ko") else "en"
    return "en"


def _texts(raw: Any, slug: str, key: str) -> dict[str, str]:
    if not isinstance(raw, dict) or "en" not in raw:
        raise ValueError(f"catalog entry {slug}: {key} needs at least an 'en' text")
    return {str(lang): str(text).strip() for lang, text in raw.items()}


def _lines(raw: Any, slug: str) -> dict[str, list[str]]:
    if not isinstance(raw, dict) or "en" not in raw:
        raise ValueError(f"catalog entry {slug}: remediation needs at least an 'en' list")
    out: dict[str, list[str]] = {}
    for lang, lines in raw.items():
        if not isinstance(lines, list):
            raise ValueError(f"catalog entry {slug}: remediation.{lang} must be a list")
        out[str(lang)] = [str(line).rstrip() for line in lines]
    return out


def parse_catalog(data: Any) -> dict[str, CatalogEntry]:
    """Validate and convert the YAML document; a malformed entry is a bug, so it raises."""
    if not isinstance(data, dict):
        raise ValueError("catalog must be a mapping of slug to entry")
    catalog: dict[str, CatalogEntry] = {}
    for slug, raw in data.items():
        if not isinstance(raw, dict):
            raise ValueError(f"catalog entry {slug}: must be a mapping")
        severity = raw.get("severity")
        if severity not in SEVERITIES:
            raise ValueError(f"catalog entry {slug}: severity {severity!r} is not one of {SEVERITIES}")
        catalog[slug] = CatalogEntry(
            slug=slug,
            severity=severity,
            title=_texts(raw.get("title"), slug, "title"),
            summary=_texts(raw.get("summary"), slug, "summary"),
            remediation=_lines(raw.get("remediation"), slug),
            docs=f"docs/findings/{slug}.md",
        )
    return catalog


@lru_cache(maxsize=1)
def load_catalog() -> dict[str, CatalogEntry]:
    """The packaged catalog, parsed once per process."""
    text = resources.files("kubectl_rbln.diagnose").joinpath(CATALOG_FILE).read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return parse_catalog(yaml.load(text, Loader=loader))  # a safe loader, C-accelerated when available
