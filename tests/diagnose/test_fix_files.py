"""Every file a fix applies exists where the user is (issue 13): why, check, attrs and suggest-rct.

A fix line that runs `kubectl apply -f PATH` must either produce PATH earlier in the same fix
(`... > PATH`), or read stdin that the same line feeds (a pipe or a heredoc), or name the user's
own file as a placeholder (`<fixed-rct.yaml>`). No fix may name a file of a repository the user
does not have (the chart's examples/manifests/ folder is not public).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from kubectl_rbln.catalog import load_catalog
from testing.synthetic.scenarios import SCENARIOS
from tests.diagnose.fix_walk import scenario_command_texts, scenario_fixes

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "ko")
APPLY_FILE = re.compile(r"\b(?:apply|create|replace)\b[^|;]*?\s-f\s+(\S+)")
WRITES = re.compile(r">\s*(\S+)")


def unapplicable(lines: list[str]) -> list[str]:
    """The lines of one fix that apply a file the fix does not make and the user does not have."""
    made: set[str] = set()
    bad = []
    in_heredoc = None
    for line in lines:
        text = line.strip()
        if in_heredoc is not None:
            if text == in_heredoc:
                in_heredoc = None
            continue
        heredoc = re.search(r"<<-?'?(\w+)'?", text)
        if not text.startswith("#"):
            for path in (found.rstrip(").,;:") for found in APPLY_FILE.findall(text)):
                if path == "-":
                    if not (heredoc or re.search(r"\|\s*(sudo\s+)?kubectl\b.*-f -", text)):
                        bad.append(line)
                elif not (path in made or (path.startswith("<") and path.endswith(">"))):
                    bad.append(line)
            made.update(WRITES.findall(text.replace("2>", "")))
        if heredoc:
            in_heredoc = heredoc.group(1)
    return bad


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_file_a_fix_applies_exists_where_the_user_is(name: str, lang: str) -> None:
    """The findings of why, check and attrs on every scenario."""
    for slug, lines in scenario_fixes(name, lang):
        assert not unapplicable(lines), f"{name}/{lang}/{slug}: {unapplicable(lines)}"
        assert not any("examples/manifests" in line for line in lines), f"{name}/{lang}/{slug}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_attrs_and_suggest_rct_apply_only_files_they_make(name: str, lang: str) -> None:
    """What attrs prints (its own fix lines) and suggest-rct's apply steps, on every scenario."""
    for where, lines in scenario_command_texts(name, lang):
        assert not unapplicable(lines), f"{name}/{lang}/{where}: {unapplicable(lines)}"
        assert not any("examples/manifests" in line for line in lines), f"{name}/{lang}/{where}"


def test_every_catalog_fix_applies_only_files_it_makes() -> None:
    """The same rule over every fix the catalog holds, also for cases no scenario reaches."""
    for slug, entry in load_catalog().items():
        for _case, words in entry.all_words():
            for lang in LANGS:
                lines = [line.text for line in words.remediation[lang]]
                assert not unapplicable(lines), f"{slug}/{lang}: {unapplicable(lines)}"


def test_no_fix_or_page_names_a_file_the_user_lacks() -> None:
    texts = [ROOT / "kubectl_rbln/catalog/catalog.yaml", ROOT / "README.md", *ROOT.glob("docs/**/*.md")]
    for path in texts:
        assert "examples/manifests" not in path.read_text(encoding="utf-8"), path


def test_the_heredoc_and_pipe_rules() -> None:
    assert unapplicable(["kubectl -n a apply -f examples/manifests/rct/numa-aligned.yaml"])
    assert unapplicable(["kubectl -n a apply -f -"])
    assert not unapplicable(["kubectl rbln suggest-rct -n a > x.yaml", "kubectl -n a apply -f x.yaml"])
    assert not unapplicable(["kubectl -n a apply -f - <<'EOF'", "- a: -f nothing.yaml", "EOF"])
    assert not unapplicable(["kubectl rbln suggest-rct | kubectl apply -f -"])
    assert not unapplicable(["kubectl -n a apply -f <fixed-rct.yaml>"])


@pytest.mark.parametrize("recipe", ["numa-aligned", "numa-unaligned", "npu-only"])
def test_suggest_rct_prints_a_recipe_without_a_cluster(inprocess_rbln, monkeypatch, recipe: str) -> None:
    monkeypatch.setenv("KUBECONFIG", str(ROOT / "does-not-exist"))
    args = ("--print-recipe", "--recipe", recipe, "-n", "llm", "--rct", "npu-rdma")
    args += ("--api-version", "v1beta1")
    code, out, err = inprocess_rbln("suggest-rct", *args)
    assert code == 0, err
    rct = yaml.safe_load(out)
    assert rct["apiVersion"] == "resource.k8s.io/v1beta1"
    assert rct["kind"] == "ResourceClaimTemplate"
    assert rct["metadata"] == {"name": "npu-rdma", "namespace": "llm"}
    constraints = rct["spec"]["spec"]["devices"].get("constraints", [])
    assert bool(constraints) == (recipe == "numa-aligned")


def test_print_recipe_needs_a_recipe(inprocess_rbln) -> None:
    code, _, err = inprocess_rbln("suggest-rct", "--print-recipe")
    assert code == 2
    assert "--recipe" in err
