"""Validate documents against the shipped JSON Schemas (kubectl_rbln/schemas/), for the tests.

Why here and not in the package: `jsonschema` is a test dependency; the plugin only ships the
schemas and reads its `apiVersion`s from them. A document is checked as a reader gets it: the JSON
text `-o json` prints, parsed again (a value the printer writes with `str()` is a string there).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from kubectl_rbln.render.output import to_json
from kubectl_rbln.schemas import COMMON, ID_PREFIX, KINDS, schema


@cache
def registry() -> Registry:
    """Every shipped schema under its `$id`, so `urn:kubectl-rbln:schema:common#/$defs/...` resolves."""
    resources = [(ID_PREFIX + name, schema(name)) for name in (COMMON, *KINDS)]
    return Registry().with_resources(
        (uri, Resource.from_contents(contents, default_specification=DRAFT202012))
        for uri, contents in resources
    )


@cache
def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(schema(kind), registry=registry())


def as_read(document: Any) -> Any:
    """The document as a script reads it: printed by `-o json`, parsed back."""
    return json.loads(to_json(document))


def problems(kind: str, document: Any) -> list[str]:
    """Every way `document` breaks the schema of `kind`, one line each (empty: it conforms)."""
    out = []
    for error in sorted(validator(kind).iter_errors(as_read(document)), key=lambda e: list(e.absolute_path)):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path) or "."
        out.append(f"{kind}{where}: {error.message[:300]}")
    return out


def kind_of(document: dict[str, Any]) -> str:
    kind = document.get("kind")
    assert isinstance(kind, str) and kind in KINDS, f"a document of no known kind: {kind!r}"
    return kind


def check(document: dict[str, Any]) -> list[str]:
    """`problems` against the schema the document's own `kind` names."""
    return problems(kind_of(document), document)


def iter_json_lines(text: str) -> Iterator[dict[str, Any]]:
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)
