"""Every word the user reads about a finding or a verdict, in English and Korean (catalog.yaml).

Rules and reports carry slugs, cases and typed values; this package turns them into text at
render time. Nothing else in the package writes a finding's title, detail or fix.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from kubectl_rbln.catalog.entries import (
    LANGUAGES,
    SEVERITIES,
    YAML_TEACHERS,
    CatalogEntry,
    Line,
    Words,
    load_catalog,
    load_sentences,
    parse_catalog,
)
from kubectl_rbln.catalog.fill import (
    ListWords,
    Names,
    fill,
    fill_command,
    fill_lines,
    is_command,
    placeholders,
)

__all__ = [
    "LANGUAGES",
    "SEVERITIES",
    "CatalogEntry",
    "Line",
    "Names",
    "Phrase",
    "RenderedWords",
    "Said",
    "Words",
    "alternative",
    "alternative_prefix",
    "data_lang",
    "docs_path",
    "fill",
    "join_and",
    "load_catalog",
    "load_sentences",
    "machine_document",
    "missing_values",
    "parse_catalog",
    "pick_language",
    "placeholders",
    "render",
    "render_entry",
    "render_words",
    "sentence",
    "said_in",
    "say",
    "severity_of",
]


@dataclass(frozen=True, slots=True)
class RenderedWords:
    """One finding's words in one language, its values filled in."""

    slug: str
    severity: str
    lang: str
    title: str
    summary: str
    remediation: list[str]
    docs: str


def severity_of(slug: str, case: str | None = None) -> str:
    """The catalog's severity for a slug (or one of its cases): the only place severity is decided."""
    return load_catalog()[slug].words(case).severity


def docs_path(slug: str, lang: str) -> str:
    """The finding's page in the repository, the Korean twin for Korean output."""
    page = f"docs/findings/{slug}.md"
    return page.replace("docs/", "docs/ko/", 1) if lang == "ko" else page


def render_words(slug: str, lang: str, values: Mapping[str, Any], case: str | None = None) -> RenderedWords:
    """The words of `slug` (or its `case`) in `lang` (English when missing), filled from `values`."""
    return render_entry(load_catalog()[slug], lang, values, case)


def _line_texts(line: Line, values: Mapping[str, Any], more: ListWords, lang: str) -> list[str]:
    if line.alt:
        return [alternative(fill(line.text, values, more), lang)]
    if line.each is None:
        return fill_lines(line.text, values, more)
    fill_one = (
        (lambda text, vals: fill_command(text, vals))
        if is_command(line.text)
        else (lambda text, vals: fill(text, vals, more))
    )
    return [fill_one(line.text, {**values, line.each: item}) for item in values.get(line.each) or []]


def render(entry: CatalogEntry, lang: str = "en", **values: Any) -> RenderedWords:
    """One entry's words with keyword values (explain's fallback page, the catalog tests)."""
    return render_entry(entry, lang, values)


def render_entry(
    entry: CatalogEntry, lang: str, values: Mapping[str, Any], case: str | None = None
) -> RenderedWords:
    """The one place a finding's words are filled: every command and test goes through here."""
    words = entry.words(case)
    language = lang if lang in words.title else "en"
    values = {name: _said_words(value, language) for name, value in values.items()}
    lines = words.remediation.get(language) or words.remediation.get("en", [])
    more = _more(language)
    shown = [line for line in lines if line.applies(dict(values))]
    remediation = [text for line in shown for text in _line_texts(line, values, more, language)]
    return RenderedWords(
        slug=entry.slug,
        severity=words.severity,
        lang=language,
        title=fill(words.title.get(language, entry.slug), values, more),
        summary=fill(words.summary.get(language, ""), values, more),
        remediation=remediation,
        docs=docs_path(entry.slug, language),
    )


def _said_words(value: Any, lang: str) -> Any:
    """A value as the finding's words say it: a Said (or a list of them, a Names too) in `lang`."""
    if isinstance(value, Said):
        return value.text(lang)
    if isinstance(value, list) and any(isinstance(v, Said) for v in value):
        out = copy.copy(value)
        out[:] = [v.text(lang) if isinstance(v, Said) else v for v in value]
        return out
    return value


def alternative(label: str, lang: str) -> str:
    """The heading of an alternative fix path: `# Alternative, LABEL:` in the reader's language."""
    texts = load_sentences().get("fix-alternative") or {"en": "# Alternative, {label}:"}
    return fill(texts.get(lang) or texts["en"], {"label": label})


def alternative_prefix(lang: str) -> str:
    """What every alternative heading starts with in `lang` (the tests split a fix at it)."""
    return alternative("\0", lang).split("\0", 1)[0]


def _more(lang: str) -> ListWords:
    """How a long list ends ("a, b and 2 more") and how an empty one reads ("none"), in `lang`
    (read once per language: every sentence is filled with it)."""
    found = _MORE.get(lang)
    if found is None:
        found = _MORE[lang] = _list_words(lang)
    return found


_MORE: dict[str, ListWords] = {}


def _list_words(lang: str) -> ListWords:
    more = load_sentences().get("more-names", {})
    empty = load_sentences().get("no-names", {})
    default = ListWords()
    return ListWords(
        more=more.get(lang) or more.get("en") or default.more,
        none=empty.get(lang) or empty.get("en") or default.none,
    )


def sentence(key: str, lang: str, **values: Any) -> str:
    """A fixed phrase of the catalog's `sentences:` (verdicts...), filled; English when missing."""
    texts = load_sentences()[key]
    return fill(texts.get(lang) or texts["en"], values, _more(lang))


def missing_values(
    entry: CatalogEntry, values: Mapping[str, Any], lang: str = "en", case: str | None = None
) -> set[str]:
    """Placeholders of `entry` that `values` does not fill: the rule tests assert this is empty."""
    lines = entry.words(case).remediation.get(lang, [])
    conditions = {name for line in lines for name in line.conditions} | {
        line.each for line in lines if line.each
    }
    return {name for name in entry.placeholders(lang, case) - conditions if values.get(name) is None}


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


@dataclass(frozen=True, slots=True)
class Phrase:
    """Words decided now, written later in the reader's language: sentence `key` filled with `values`.

    A value may itself be a Phrase (a joined list, a verdict word); `parts` are more phrases that
    follow, joined by `sep` (a checklist item's "found" is often several)."""

    key: str
    values: Mapping[str, Any] = dataclass_field(default_factory=dict)
    parts: tuple[Phrase, ...] = ()
    sep: str = ""

    def text(self, lang: str) -> str:
        return say(self, lang)


def say(text: Phrase | str, lang: str) -> str:
    """A Phrase in `lang` (a plain string is returned as it is: a name, a Pod)."""
    if isinstance(text, str):
        return text
    try:  # thousands of nodes fail with the same words (`why` at 5,000 nodes): filled once
        values = tuple([(name, type(v), v) for name, v in text.values.items()])  # 1 and True differ
        key: Any = (text.key, values, text.parts, text.sep, lang)
        found = _SAID.get(key)
    except TypeError:  # a value that cannot be a key (a list, a nested phrase): filled each time
        key = found = None
    if found is not None:
        return found
    said = _say(text, lang)
    if key is not None:
        if len(_SAID) >= 4096:
            _SAID.clear()
        _SAID[key] = said
    return said


_SAID: dict[Any, str] = {}


def _say(text: Phrase, lang: str) -> str:
    values = {name: say(v, lang) if isinstance(v, Phrase) else v for name, v in text.values.items()}
    pieces = [sentence(text.key, lang, **values)] if text.key else []
    pieces += [say(part, lang) for part in text.parts]
    return text.sep.join(pieces)


class Said(str):
    """A Phrase already said in English that can be said again in another language.

    For values that are strings to everything that reads them (rules, tests, `-o json`), but that a
    view in another language shows in its words: `Finding.to_dict(lang)` swaps them (evidence)."""

    phrase: Phrase

    def __new__(cls, phrase: Phrase) -> Said:
        said = super().__new__(cls, say(phrase, "en"))
        said.phrase = phrase
        return said

    def text(self, lang: str) -> str:
        return say(self.phrase, lang)


def said_as_yaml_str(yaml: Any) -> None:
    """A Said is a string to every writer of a document, YAML's too. Taught when a catalog file is
    first read (entries.py), which is before any Said exists: yaml stays out of `--help` (~17 ms)."""
    for dumper in (yaml.SafeDumper, yaml.Dumper):
        dumper.add_representer(Said, yaml.representer.SafeRepresenter.represent_str)


YAML_TEACHERS.append(said_as_yaml_str)


# Data (evidence values, the simulation's reasons) is said in the reader's language for a table,
# but a machine-readable document keeps it English whatever the locale: `machine_document()`.
_DATA_LANG: ContextVar[str | None] = ContextVar("data_lang", default=None)


def data_lang(lang: str) -> str:
    """The language data is said in: `lang`, or English while a machine document is built."""
    return _DATA_LANG.get() or lang


@contextmanager
def machine_document() -> Iterator[None]:
    """While `-o json|yaml` builds its document: evidence and reasons stay English (stable values)."""
    token = _DATA_LANG.set("en")
    try:
        yield
    finally:
        _DATA_LANG.reset(token)


def said_in(value: Any, lang: str) -> Any:
    """`value` with every Said in it (at the top, or in a list) in `lang` (see `data_lang`)."""
    lang = data_lang(lang)
    if isinstance(value, Said):
        return value.text(lang)
    if isinstance(value, list) and any(isinstance(v, Said) for v in value):
        return [v.text(lang) if isinstance(v, Said) else v for v in value]
    return value


def join_and(items: list[str]) -> Phrase | str:
    """`a`, `a and b`, `a, b and c` in the reader's language (Korean: `a, b와 c`, particle by sound)."""
    if len(items) < 2:
        return items[0] if items else ""
    return Phrase("join-and", {"head": ", ".join(items[:-1]), "last": items[-1]})
