"""A released document schema may only grow: compare the shipped schemas with their released copies.

`kubectl_rbln/schemas/released/<Kind>-<version>.json` is the schema of `<Kind>` as version `<version>`
of its `apiVersion` was released, bundled (every schema it refers to embedded under `$defs` by its
`$id`, as JSON Schema 2020-12 bundles), so it stays whole when the shipped files change. A field a
released copy has must still be in the shipped schema, with the same JSON types, and still required
where it was required; fields may be added. Removing, renaming or retyping one needs a new version in
the schema's `apiVersion` const, and a released copy for it:

    python -m testing.schema_compat --check
    python -m testing.schema_compat --release WhyReport   # after bumping WhyReport's apiVersion
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kubectl_rbln.schemas import ID_PREFIX, KINDS, api_version, schema

RELEASED = Path(__file__).resolve().parent.parent / "kubectl_rbln" / "schemas" / "released"
JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}


def version_of(kind: str) -> str:
    """`kubectl-rbln/v2` -> `v2`; `v1` (Kubernetes' List) stays `v1`."""
    return api_version(kind).rpartition("/")[2]


def released_path(kind: str, version: str | None = None) -> Path:
    return RELEASED / f"{kind}-{version or version_of(kind)}.json"


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(ID_PREFIX):
            yield ref.partition("#")[0]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def bundled(kind: str) -> dict[str, Any]:
    """The schema of `kind` with every schema it refers to (transitively) embedded under `$defs`."""
    root = copy.deepcopy(schema(kind))
    seen = {ID_PREFIX + kind}
    todo = list(_refs(root))
    embedded: dict[str, Any] = {}
    while todo:
        uri = todo.pop()
        if uri in seen:
            continue
        seen.add(uri)
        other = copy.deepcopy(schema(uri.removeprefix(ID_PREFIX)))
        other.pop("$schema", None)
        embedded[uri] = other
        todo += list(_refs(other))
    root.setdefault("$defs", {}).update(dict(sorted(embedded.items())))
    return root


class _Resolver:
    """Resolves `$ref`s of one bundled schema: `#/...` against the resource it stands in, `urn:...#/...`
    against the embedded resource of that `$id`."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.resources = {root["$id"]: root}
        for value in root.get("$defs", {}).values():
            if isinstance(value, dict) and "$id" in value:
                self.resources[value["$id"]] = value

    def resolve(self, ref: str, base: str) -> tuple[dict[str, Any], str]:
        uri, _, pointer = ref.partition("#")
        uri = uri or base
        node: Any = self.resources[uri]
        for part in filter(None, pointer.split("/")):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node, uri


def _types(node: dict[str, Any]) -> set[str]:
    if "const" in node:
        return {JSON_TYPES[type(node["const"])]}
    if "enum" in node:
        return {JSON_TYPES[type(v)] for v in node["enum"]}
    declared = node.get("type")
    if isinstance(declared, str):
        return {declared}
    return set(declared or ())


Fields = dict[str, tuple[set[str], bool]]  # path -> (JSON types, required wherever its parent is)


def fields(root: dict[str, Any]) -> Fields:
    """Every field path of a bundled schema (`.pods[].findings[].slug`, `.advertised.*`) with its types."""
    resolver = _Resolver(root)
    out: Fields = {}

    def walk(node: Any, path: str, base: str, required: bool, stack: tuple[str, ...]) -> None:
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            target, target_base = resolver.resolve(node["$ref"], base)
            key = f"{target_base}#{node['$ref'].partition('#')[2]}@{path}"
            if key not in stack:
                walk(target, path, target_base, required, (*stack, key))
        base = node.get("$id", base)
        types, was_required = out.get(path, (set(), True))
        out[path] = (types | _types(node), was_required and required)
        needed = set(node.get("required", ()))
        for name, sub in node.get("properties", {}).items():
            walk(sub, f"{path}.{name}", base, name in needed, stack)
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], f"{path}.*", base, False, stack)
        if isinstance(node.get("items"), dict):
            walk(node["items"], f"{path}[]", base, True, stack)
        for word in ("oneOf", "anyOf", "allOf"):
            for sub in node.get(word, ()):
                walk(sub, path, base, required, stack)
        for word in ("then", "else"):
            walk(node.get(word), path, base, required, stack)

    walk(root, "", root["$id"], True, ())
    return {path: value for path, value in out.items() if value[0] or path == ""}


def breaking_changes(released: dict[str, Any], shipped: dict[str, Any]) -> list[str]:
    """What a reader of the released version would miss in the shipped one (empty: compatible)."""
    before, after = fields(released), fields(shipped)
    problems = []
    for path, (types, required) in sorted(before.items()):
        if path not in after:
            problems.append(f"{path or '.'}: removed or renamed")
            continue
        now, still_required = after[path]
        if now != types:
            problems.append(f"{path or '.'}: retyped from {sorted(types)} to {sorted(now)}")
        if required and not still_required:
            problems.append(f"{path or '.'}: no longer required")
    return problems


def check() -> list[str]:
    """Every kind against the released copy of its current version."""
    out = []
    for kind in KINDS:
        path = released_path(kind)
        if not path.exists():
            hint = f"python -m testing.schema_compat --release {kind}"
            out.append(f"{kind}: no released copy {path.name} ({hint})")
            continue
        released = json.loads(path.read_text(encoding="utf-8"))
        out += [f"{kind} {version_of(kind)}: {p}" for p in breaking_changes(released, bundled(kind))]
    return out


def release(kind: str) -> Path:
    path = released_path(kind)
    path.write_text(json.dumps(bundled(kind), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail on a break without a new version")
    parser.add_argument("--release", nargs="+", metavar="KIND", help="freeze KIND's current version")
    args = parser.parse_args(argv)
    for kind in args.release or []:
        if kind not in KINDS:
            parser.error(f"{kind}: not one of {', '.join(KINDS)}")
        if released_path(kind).exists():
            parser.error(f"{released_path(kind).name} is released already: a released copy never changes")
        print(release(kind))
    if args.check:
        problems = check()
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
