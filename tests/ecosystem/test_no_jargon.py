"""What a user reads names no internal reference: no product-document seed numbers, no private
reference files, no section signs, no source paths of this repository.

Scanned: README.md and the docs pages (the developer pages excepted, they may name source files), every
title, summary and sentence of the catalog in both languages, and the table and `-o json` output of
`why`, `check` and `attrs` over every synthetic scenario, in both languages. A failure names the place.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kubectl_rbln.cli.group import cli
from testing.synthetic.builder import write_bundle
from testing.synthetic.scenarios import SCENARIOS

REPO = Path(__file__).resolve().parents[2]
JARGON = ("seed 0", "dra-facts", "ecosystem-facts", "§", "kubectl_rbln/", "testing/synthetic")
DEVELOPER_PAGES = {
    "docs/architecture.md",
    "docs/add-a-finding.md",
    "docs/ko/architecture.md",
    "docs/ko/add-a-finding.md",
    "docs/release.md",
    "docs/ko/release.md",
}


def _hits(text: str, where: str) -> list[str]:
    return [
        f"{where}:{number}: {word!r} in {line.strip()[:120]!r}"
        for number, line in enumerate(text.split("\n"), 1)
        for word in JARGON
        if word in line
    ]


def _user_pages() -> list[Path]:
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    return [p for p in pages if p.relative_to(REPO).as_posix() not in DEVELOPER_PAGES]


def test_user_docs_have_no_internal_references() -> None:
    pages = _user_pages()
    assert len(pages) > 80
    found = [
        hit
        for page in pages
        for hit in _hits(page.read_text(encoding="utf-8"), page.relative_to(REPO).as_posix())
    ]
    assert not found, "\n".join(found)


def _catalog_texts() -> list[tuple[str, str]]:
    data = yaml.safe_load((REPO / "kubectl_rbln" / "catalog" / "catalog.yaml").read_text(encoding="utf-8"))
    out: list[tuple[str, str]] = []

    def walk(node: object, where: str) -> None:
        if isinstance(node, str):
            out.append((where, node))
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}[{index}]")

    for slug, entry in data["findings"].items():
        for field in ("title", "summary"):
            walk(entry.get(field), f"catalog findings.{slug}.{field}")
        for case, words in (entry.get("cases") or {}).items():
            for field in ("title", "summary"):
                walk((words or {}).get(field), f"catalog findings.{slug}.cases.{case}.{field}")
    walk(data.get("sentences"), "catalog sentences")
    return out


def test_catalog_words_have_no_internal_references() -> None:
    texts = _catalog_texts()
    assert len(texts) > 100
    found = [hit for where, text in texts for hit in _hits(text, where)]
    assert not found, "\n".join(found)


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("jargon")
    out = {}
    for name, scenario in SCENARIOS.items():
        out[name] = folder / f"{name}.json"
        write_bundle(out[name], scenario.build("v1"))
    return out


@pytest.mark.parametrize("command", ["why", "check", "attrs"])
def test_outputs_have_no_internal_references(command: str, bundles: dict[str, Path]) -> None:
    found: list[str] = []
    runs = 0
    for name, scenario in SCENARIOS.items():
        namespace, pod = scenario.pending_pod
        target = [pod] if command == "why" else []
        for lang in ("en", "ko"):
            for output in ("table", "json"):
                args = [command, "-f", str(bundles[name]), "-n", namespace, "--no-color", "--lang", lang]
                result = CliRunner().invoke(cli, [*args, "-o", output, *target], prog_name="kubectl rbln")
                crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
                assert not crashed, (name, result.output)
                runs += bool(result.output.strip())
                found += _hits(result.output, f"{command} -f {name} --lang {lang} -o {output}")
    assert runs == len(SCENARIOS) * 4
    assert not found, "\n".join(found)
