"""`kubectl rbln explain schema KIND`: the contract a script validates against, from the plugin itself."""

from __future__ import annotations

import json

import jsonschema
from referencing import Registry, Resource

from kubectl_rbln.schemas import COMMON, KINDS, schema


def test_explain_schema_lists_every_kind(inprocess_rbln) -> None:
    code, out, _ = inprocess_rbln("explain", "schema")
    assert code == 0 and out.split() == [*KINDS, COMMON]


def test_explain_schema_prints_the_shipped_schema_and_it_validates_why(inprocess_rbln) -> None:
    code, out, _ = inprocess_rbln("explain", "schema", "WhyReport")
    assert code == 0 and json.loads(out) == schema("WhyReport")
    _, common, _ = inprocess_rbln("explain", "schema", "common")
    printed = [json.loads(out), json.loads(common)]
    registry = Registry().with_resources([(s["$id"], Resource.from_contents(s)) for s in printed])
    _, document, _ = inprocess_rbln("why", "--example", "-o", "json")
    jsonschema.Draft202012Validator(printed[0], registry=registry).validate(json.loads(document))


def test_an_unknown_kind_is_one_line_and_an_error(inprocess_rbln) -> None:
    code, out, err = inprocess_rbln("explain", "schema", "Report")
    assert out == "" and err.startswith('error: no document kind named "Report"')
    assert code != 0
