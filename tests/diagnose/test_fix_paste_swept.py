"""The rules of issue 22 held over every entry: nothing to fill in, nothing interactive, every
node step on a node (the shape rules of fix_walk.py hold for every entry already).

A command never holds a `<placeholder>`, a heredoc or `kubectl edit`; a node-side step names the
node it runs on. Walked over every `when` combination of each swept entry's words (en and ko, an RCT
Pod and a direct ResourceClaim) and over every fix `why`, `check` and `attrs` give on every scenario.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from kubectl_rbln.catalog import CatalogEntry, load_catalog, render_entry
from kubectl_rbln.catalog.fix import Fix, build_fix
from testing.synthetic.scenarios import SCENARIOS
from tests.diagnose.fix_walk import LANGS, scenario_findings

SWEPT = tuple(sorted(load_catalog()))  # every entry
PLACEHOLDER = re.compile(r"<[a-z][\w.-]*>|(?<!\{)\{[a-z_]+\}(?!\})")
INTERACTIVE = re.compile(r"\bkubectl\s+(?:(?:-n|--namespace|--context)[= ]\S+\s+)*edit\b")
# the remedies' values, as Remedies.attach hands them over (one command each is enough here)
REMEDIES = {
    "rct_fix": ["kubectl -n llm create -f npu-rdma.suggested.yaml"],
    "claim_fix": ["kubectl -n llm create -f shared.suggested.yaml"],
    "recreate": ["kubectl -n llm rollout restart deployment/decode"],
    "rct_edit": ["kubectl -n llm create -f npu-rdma.tolerating.json"],
}


def paste_problems(fix: Fix) -> list[str]:
    """What keeps a fix from running as printed: a placeholder, a heredoc, an interactive edit, a node
    step that names no node."""
    problems = []
    for path in (fix.recommended, *fix.alternatives):
        for step in path.steps:
            if step.runs_on == "node" and not step.node:
                problems.append(f"a node step with no node: {step.script}")
            for command in step.commands:
                if PLACEHOLDER.search(command):
                    problems.append(f"a placeholder: {command!r}")
                if "<<" in command or INTERACTIVE.search(command):
                    problems.append(f"a heredoc or an interactive edit: {command!r}")
    return problems


def test_the_paste_rules_catch_what_they_name() -> None:
    def fix(*lines: str, nodes: tuple[str, ...] = ("n1",)) -> Fix:
        return build_fix(list(lines), "en", nodes)

    assert not paste_problems(fix("kubectl -n a get pod p", "sudo modprobe bnxt_re"))
    assert paste_problems(fix("kubectl -n a apply -f <fixed-rct.yaml>"))
    assert paste_problems(fix("kubectl -n a get pod {pod}"))
    assert paste_problems(fix("sudo tee /etc/x.conf <<'EOF'\n[Service]\nEOF"))
    assert paste_problems(fix("kubectl -n a edit resourceclaimtemplate r"))
    assert paste_problems(fix("sudo modprobe bnxt_re", nodes=()))


def _combinations(entry: CatalogEntry, case: str | None) -> list[dict[str, Any]]:
    words = entry.words(case)
    conditions = sorted(
        {n for lang in LANGS for line in words.remediation[lang] for n in line.conditions} - {"direct_claim"}
    )
    names = entry.placeholders("en", case) | entry.placeholders("ko", case)
    base: dict[str, Any] = {name: f"x-{name}" for name in names}
    base |= {"node": "n1", "nodes": ["n1", "n2"], "slices": ["s1"], "rules": ["r1"], "tolerations": ["t"]}
    out = []
    for bits in itertools.product((False, True), repeat=len(conditions)):
        values = dict(base)
        for name, on in zip(conditions, bits, strict=True):
            remedy = REMEDIES.get(name) or (REMEDIES["rct_fix"] if name.startswith("rct_fix") else None)
            values[name] = (remedy or values.get(name) or True) if on else False
        out += [{**values, "direct_claim": direct} for direct in (False, True)]
    return out


@pytest.mark.parametrize("slug", SWEPT)
def test_every_when_combination_pastes(slug: str) -> None:
    entry = load_catalog()[slug]
    problems = []
    for case, _ in entry.all_words():
        for values in _combinations(entry, case):
            for lang in LANGS:
                lines = render_entry(entry, lang, values, case).remediation
                fix = build_fix(lines, lang, ["n1"])
                problems += [f"{case}/{lang}: {p}" for p in paste_problems(fix)]
                if not fix.recommended.steps:
                    problems.append(f"{case}/{lang}: no recommended step for {values}")
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_fix_of_a_swept_entry_pastes(name: str, lang: str) -> None:
    for finding in (f for f in scenario_findings(name) if f.slug in SWEPT):
        problems = paste_problems(finding.fix(lang))
        assert not problems, f"{name}/{lang}/{finding.slug}/{finding.case}: {problems}"
