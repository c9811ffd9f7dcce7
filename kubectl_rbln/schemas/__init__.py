"""The JSON Schemas of every document the plugin prints (`-o json|yaml`, `dump`), shipped as package data.

Why: a script that reads `kubectl rbln why -o json` needs a contract it can check, and the plugin needs
one place that says which `apiVersion` each document carries. Each `<Kind>.json` here is written by hand
(draft 2020-12); a document's `apiVersion` is read from its schema (`properties.apiVersion.const`), so
the output and the schema cannot name different versions. `released/<Kind>-<version>.json` is the frozen
copy of each version shipped: tests/schemas/test_compatibility.py fails when a field is removed, renamed
or retyped without a new version. The documentation (docs/output-schema.md) is rendered from these files
by testing/schema_docs.py.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

# Every document kind, in the order the documentation lists them; `common` holds the shared parts.
KINDS: tuple[str, ...] = (
    "WhyReport",
    "WhyWatchEvent",
    "CheckReport",
    "FleetCheckReport",
    "AttrsReport",
    "AttrsReportList",
    "SuggestRctReport",
    "PodDevicesReport",
    "TopoReport",
    "VersionReport",
    "List",
    "ClusterInfo",
    "PodLog",
    "ExecCapture",
)
COMMON = "common"
ID_PREFIX = "urn:kubectl-rbln:schema:"


@cache
def schema(name: str) -> dict[str, Any]:
    """The schema of a kind (or `common`), as shipped."""
    text = resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def api_version(kind: str) -> str:
    """The `apiVersion` a document of `kind` carries: the one its schema fixes."""
    value: str = schema(kind)["properties"]["apiVersion"]["const"]
    return value
