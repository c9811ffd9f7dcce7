"""The shipped schemas are valid JSON Schema 2020-12, every `$ref` resolves, each document's kind and
apiVersion are fixed by its schema, and they ship in the wheel (pyproject's package data)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from kubectl_rbln.dra.normalize import PLUGIN_API_VERSION
from kubectl_rbln.schemas import COMMON, ID_PREFIX, KINDS, api_version, schema
from testing.schema_check import registry
from tests.conftest import REPO


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


@pytest.mark.parametrize("name", [COMMON, *KINDS])
def test_each_schema_is_valid_2020_12_and_its_refs_resolve(name: str) -> None:
    document_schema = schema(name)
    Draft202012Validator.check_schema(document_schema)
    assert document_schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document_schema["$id"] == ID_PREFIX + name
    resolver = registry().resolver(base_uri=document_schema["$id"])
    for ref in _refs(document_schema):
        resolver.lookup(ref)  # raises when it points nowhere


@pytest.mark.parametrize("kind", KINDS)
def test_each_document_kind_has_its_name_and_version_fixed(kind: str) -> None:
    properties = schema(kind)["properties"]
    assert properties["kind"] == {"const": kind if kind != "List" else "List"}
    version = api_version(kind)
    assert version == ("v1" if kind == "List" else version)
    assert version.startswith("kubectl-rbln/v") or kind == "List"
    assert schema(kind)["additionalProperties"] is False
    assert {"apiVersion", "kind"} <= set(schema(kind)["required"])


def test_the_bundle_items_schemas_name_the_version_the_source_writes() -> None:
    for kind in ("ClusterInfo", "PodLog", "ExecCapture"):
        assert api_version(kind) == PLUGIN_API_VERSION


def test_every_own_object_is_closed() -> None:
    """Every object with `properties` in our schemas refuses unknown keys (a renamed field fails);
    only Kubernetes objects and the open maps (evidence, facts, values) stay open."""
    open_ones = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if "properties" in node and node.get("additionalProperties") is not False:
                open_ones.append(where)
            for key, value in node.items():
                if key != "if":  # a condition, not an object of a document
                    walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    for name in (COMMON, *KINDS):
        walk(schema(name), name)
    assert open_ones == ["common/$defs/kubernetesObject"]


def test_the_schemas_ship_in_the_package() -> None:
    tomllib = pytest.importorskip("tomllib")  # python >= 3.11
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    data = project["tool"]["setuptools"]["package-data"]["kubectl_rbln"]
    assert "schemas/*.json" in data and "schemas/released/*.json" in data
    assert any(d.startswith("jsonschema") for d in project["project"]["optional-dependencies"]["test"])
