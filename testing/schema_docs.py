"""docs/output-schema.md and docs/ko/output-schema.md, rendered from the shipped schemas.

The schemas (kubectl_rbln/schemas/*.json) are the contract; the pages are drawn from them (each
field's type from the schema, its meaning from `description` / `x-description-ko`), so the docs and
the output cannot disagree: tests/schemas/test_documents.py holds the output to the schemas, and
tests/schemas/test_schema_docs.py holds the pages to this script.

    python -m testing.schema_docs --check     # exit 1 and a diff when a page drifted
    python -m testing.schema_docs --write     # rewrite the pages
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path
from typing import Any

from kubectl_rbln.schemas import COMMON, ID_PREFIX, KINDS, api_version, schema
from testing.modes import write_wanted

REPO = Path(__file__).resolve().parent.parent
PAGES = {"en": REPO / "docs" / "output-schema.md", "ko": REPO / "docs" / "ko" / "output-schema.md"}
BUNDLE_ITEMS = ("ClusterInfo", "PodLog", "ExecCapture")

# The page's own words, per language (prose too long for code lines): testing/schema_docs_words.json.
WORDS: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).with_name("schema_docs_words.json")).read_text(encoding="utf-8")
)


def _meaning(node: dict[str, Any], lang: str) -> str:
    text = node.get("x-description-ko" if lang == "ko" else "description", "")
    return str(text).replace("|", "\\|").replace("\n", " ")


class _Page:
    """One language's page: the sections of the titled definitions a table points to, in order."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.words = WORDS[lang]

    def _target(self, ref: str, base: str) -> tuple[dict[str, Any], str, str]:
        """(node, its schema's name, the section it is drawn in or "") of a `$ref`."""
        uri, _, pointer = ref.partition("#")
        name = (uri or base).removeprefix(ID_PREFIX)
        node: Any = schema(name)
        for part in filter(None, pointer.split("/")):
            node = node[part]
        section = _heading(name, node.get("title", "")) if pointer and "title" in node else ""
        return node, name, section if pointer else name

    def type_of(self, node: dict[str, Any], base: str) -> str:
        w = self.words
        if "$ref" in node:
            target, name, section = self._target(node["$ref"], base)
            if section:
                return f"[{section}](#{anchor(section)})"
            return self.type_of(target, name)
        if "const" in node:
            return f"`{_json(node['const'])}`"
        if "enum" in node:
            return " \\| ".join(f"`{_json(v)}`" for v in node["enum"])
        if "oneOf" in node and "type" not in node:
            return w["or"].join(self.type_of(n, base) for n in node["oneOf"])
        kinds = node.get("type")
        names = [kinds] if isinstance(kinds, str) else list(kinds or [])
        out = []
        for kind in names:
            if kind == "array":
                out.append(w["array"].format(self.type_of(node.get("items", {}), base)))
            elif kind == "object" and isinstance(node.get("additionalProperties"), dict):
                out.append(w["map"].format(self.type_of(node["additionalProperties"], base)))
            elif kind == "object":
                out.append(w["object"])
            else:
                out.append(kind)
        return w["or"].join(out) or w["any"]

    def rows(self, node: dict[str, Any], base: str, prefix: str = "") -> list[str]:
        """One row per property; an inline object's own properties follow as `parent.child`."""
        needed = set(node.get("required", ()))
        out = []
        for name, sub in node.get("properties", {}).items():
            path = f"{prefix}{name}"
            mark = "" if name in needed else "?"
            out.append(f"| `{path}`{mark} | {self.type_of(sub, base)} | {_meaning(sub, self.lang)} |")
            inline = sub.get("items", sub) if sub.get("type") == "array" else sub
            if "properties" in inline and "$ref" not in inline:
                out += self.rows(inline, base, f"{path}{'[]' if inline is not sub else ''}.")
        return out

    def table(self, node: dict[str, Any], base: str) -> list[str]:
        return [self.words["fields"], "| --- | --- | --- |", *self.rows(node, base)]

    def definitions(self, name: str, level: str) -> list[str]:
        out = []
        for node in schema(name).get("$defs", {}).values():
            if "title" not in node:
                continue
            out += ["", f"{level} {_heading(name, node['title'])}", ""]
            if _meaning(node, self.lang):
                out += [_meaning(node, self.lang), ""]
            if "oneOf" in node and "properties" not in node:
                for branch in node["oneOf"]:
                    out.append(
                        f"- {self.type_of(branch, name)}: "
                        + ", ".join(f"`{k}`" for k in branch.get("properties", {}))
                    )
                continue
            out += self.table(node, name)
        return out

    def kind_section(self, kind: str) -> list[str]:
        root = schema(kind)
        out = ["", f"## {kind}", "", _meaning(root, self.lang), ""]
        out += self.table(root, kind)
        return out + self.definitions(kind, "###")

    def render(self) -> str:
        w = self.words
        lines = [w["title"], "", w["generated"], "", w["other"], "", *w["intro"], "", w["documents"], ""]
        lines += [w["table"], "| --- | --- | --- | --- |"]
        for kind in KINDS:
            command = schema(kind).get("x-command", "")
            link = f"[{kind}](#{anchor(kind)})"
            lines.append(f"| {link} | `{api_version(kind)}` | `kubectl rbln {command}` | `{kind}.json` |")
        for kind in KINDS:
            if kind not in BUNDLE_ITEMS:
                lines += self.kind_section(kind)
        lines += ["", w["items"]]
        for kind in BUNDLE_ITEMS:
            lines += self.kind_section(kind)
        lines += ["", w["shared"], "", "`?`: " + ("optional." if self.lang == "en" else "없을 수 있습니다.")]
        lines += self.definitions(COMMON, "###")
        lines += ["", *w["tail"]]
        return "\n".join(lines).rstrip("\n") + "\n"


def _heading(name: str, title: str) -> str:
    """A definition's section: `WhyReport pods[]` (two documents have `pods[]`), a shared part bare."""
    return title if name == COMMON else f"{name} {title}"


def anchor(title: str) -> str:
    """GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, spaces to `-`."""
    kept = "".join(c for c in title.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def render(lang: str) -> str:
    return _Page(lang).render()


def drift() -> dict[Path, str]:
    """Page -> the diff from what is written to what the schemas render (empty: none drifted)."""
    out = {}
    for lang, path in PAGES.items():
        want = render(lang)
        have = path.read_text(encoding="utf-8") if path.exists() else ""
        if have != want:
            diff = difflib.unified_diff(
                have.splitlines(), want.splitlines(), str(path), "rendered", lineterm=""
            )
            out[path] = "\n".join(diff)
    return out


def main(argv: list[str] | None = None) -> int:
    writing = write_wanted(argv, __doc__)
    drifted = drift()
    if writing:
        for lang, path in PAGES.items():
            if path in drifted:
                path.write_text(render(lang), encoding="utf-8")
                print(f"wrote {path.relative_to(REPO)}")
        return 0
    for diff in drifted.values():
        print(diff, file=sys.stderr)
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
