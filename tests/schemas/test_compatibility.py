"""A released document schema only grows (testing/schema_compat.py): every kind has a frozen copy of
its current version, the shipped schema keeps every field of it with the same types, and a removed,
renamed or retyped field fails until the document's apiVersion is bumped and that version released."""

from __future__ import annotations

import copy
import json

import pytest

from kubectl_rbln.schemas import KINDS, api_version
from testing.schema_compat import RELEASED, breaking_changes, bundled, check, fields, released_path


def test_every_kind_has_a_released_copy_and_the_shipped_schemas_keep_its_fields() -> None:
    assert check() == []


def test_no_released_copy_is_left_without_a_kind() -> None:
    """`<Kind>-<version>.json` only, every kind one the plugin still knows."""
    for path in RELEASED.glob("*.json"):
        kind, _, version = path.stem.rpartition("-")
        assert kind in KINDS and version.startswith("v"), path.name


def _gates(document_schema: dict) -> dict:
    return document_schema["$defs"]["urn:kubectl-rbln:schema:common"]["$defs"]["gates"]["properties"]


def test_a_renamed_gate_is_a_breaking_change() -> None:
    released = bundled("WhyReport")
    shipped = copy.deepcopy(released)
    gates = _gates(shipped)
    gates["device_taints"] = gates.pop("DRADeviceTaints")
    assert ".assumptions.gates.DRADeviceTaints: removed or renamed" in breaking_changes(released, shipped)
    assert ".pods[].assumptions.gates.DRADeviceTaints: removed or renamed" in breaking_changes(
        released, shipped
    )


def test_a_removed_a_retyped_and_an_optional_field_are_breaking_an_added_one_is_not() -> None:
    released = bundled("TopoReport")
    shipped = copy.deepcopy(released)
    node = shipped["$defs"]["node"]["properties"]
    del node["pcieRootAttribute"]
    node["counts"]["properties"]["free"] = {"type": "string"}
    shipped["required"].remove("source")
    node["newField"] = {"type": "string"}
    assert breaking_changes(released, shipped) == [
        ".nodes[].counts.free: retyped from ['integer'] to ['string']",
        ".nodes[].pcieRootAttribute: removed or renamed",
        ".source: no longer required",
    ]
    added = copy.deepcopy(released)
    added["$defs"]["node"]["properties"]["newField"] = {"type": "string"}
    assert breaking_changes(released, added) == []


def test_a_field_made_nullable_is_retyped() -> None:
    released = bundled("VersionReport")
    shipped = copy.deepcopy(released)
    shipped["properties"]["plugin"]["type"] = ["string", "null"]
    assert breaking_changes(released, shipped) == [".plugin: retyped from ['string'] to ['null', 'string']"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_released_copy_is_the_bundle_of_its_version(kind: str) -> None:
    """A released copy names the version it froze, and holds every schema it refers to (it stays
    readable when the shipped files change)."""
    released = json.loads(released_path(kind).read_text(encoding="utf-8"))
    assert released["properties"]["apiVersion"]["const"] == api_version(kind)
    assert len(fields(released)) > 3
