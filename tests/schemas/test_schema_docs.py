"""docs/output-schema.md and its Korean page are what testing/schema_docs.py renders from the schemas:
a field added to a schema and not to the page (or the other way round) fails here."""

from __future__ import annotations

from kubectl_rbln.schemas import KINDS, api_version
from testing.schema_docs import PAGES, drift, render


def test_the_pages_are_rendered_from_the_schemas() -> None:
    assert drift() == {}, "run: python -m testing.schema_docs --write"


def test_every_document_its_version_and_each_gate_are_on_both_pages() -> None:
    for lang, path in PAGES.items():
        text = path.read_text(encoding="utf-8")
        for kind in KINDS:
            assert f"| [{kind}](#{kind.lower()}) | `{api_version(kind)}` |" in text, (lang, kind)
        assert "| `DRADeviceTaints` | boolean |" in text and "device_taints` |" not in text


def test_a_field_added_to_a_schema_changes_the_page(monkeypatch) -> None:
    from kubectl_rbln import schemas

    before = render("en")
    changed = {**schemas.schema("VersionReport")}
    changed["properties"] = {**changed["properties"], "gitCommit": {"type": "string", "description": "new"}}
    monkeypatch.setattr(
        "testing.schema_docs.schema",
        lambda name: changed if name == "VersionReport" else schemas.schema(name),
    )
    assert "| `gitCommit`? | string | new |" in render("en") and "gitCommit" not in before
