"""Write objects as a kubectl `List`: JSON (kubectl's layout) or YAML, whole or streamed.

Why: bundles must be byte-stable for the example files and tests, and a benchmark cluster of
thousands of nodes must be written without building one giant string.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def to_list(objects: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Wrap objects the way `kubectl get -o json` does for several kinds at once."""
    return {"apiVersion": "v1", "items": list(objects), "kind": "List", "metadata": {"resourceVersion": ""}}


def dumps_bundle(objects: Iterable[dict[str, Any]], *, yaml_output: bool = False) -> str:
    """kubectl's JSON layout (4-space indent, keys sorted) or YAML; both byte-stable."""
    doc = to_list(objects)
    if yaml_output:
        import yaml

        return yaml.safe_dump(doc, default_flow_style=False, sort_keys=True, allow_unicode=True)
    return json.dumps(doc, indent=4, sort_keys=True, ensure_ascii=False) + "\n"


def write_bundle(path: str, objects: Iterable[dict[str, Any]]) -> None:
    """Write a List bundle: YAML when the path ends .yaml/.yml, JSON otherwise."""
    text = dumps_bundle(objects, yaml_output=str(path).endswith((".yaml", ".yml")))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def write_bundle_stream(handle: Any, objects: Iterable[dict[str, Any]]) -> int:
    """Stream a List as compact JSON, one item a line, never holding the whole text; returns the count."""
    handle.write('{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[\n')
    encode = json.JSONEncoder(separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode
    count = 0
    for obj in objects:
        handle.write((",\n" if count else "") + encode(obj))
        count += 1
    handle.write("\n]}\n")
    return count
