"""A fix reads as one path, then labelled alternatives, and pastes safely (issue 13).

The recommended commands come first, in order; each alternative opens with a heading that says when
it applies (`# Alternative, if ...:`); explanations are `# ` lines of their own, never text on a
command line and never around an inline command; a file a fix writes is a heredoc (`sudo tee FILE
<<'EOF'` ... `EOF`), so no line of a drop-in (`[Service]`) is ever run; no bare `-` argument.
Walked over every catalog fix (each slug and case, en and ko, conditions off and on, an RCT Pod and a
direct ResourceClaim) and over every fix `why`, `check` and `attrs` print for every scenario.
"""

from __future__ import annotations

import re

import pytest

from kubectl_rbln.catalog import alternative_prefix, load_catalog, render_entry
from testing.synthetic.scenarios import SCENARIOS
from tests.diagnose.fix_walk import LANGS, catalog_fixes, scenario_fixes, shape_problems, shell_lines


def test_shell_lines_skip_heredoc_bodies() -> None:
    drop_in = "sudo tee /etc/x.conf <<'EOF'\n[Service]\nLimitMEMLOCK=infinity\nEOF"
    fix = ["# a drop-in", drop_in, "sudo systemctl restart x"]
    assert shell_lines(fix) == ["sudo tee /etc/x.conf <<'EOF'", "sudo systemctl restart x"]


def test_the_shape_rules_catch_what_they_name() -> None:
    alt = alternative_prefix("en")
    assert not shape_problems(["kubectl get x", f"{alt}if y:", "kubectl get y"], "en")
    assert shape_problems(["# only words"], "en")  # no recommended command
    assert shape_problems(["kubectl get x", "# Or do y instead"], "en")  # an unlabelled alternative
    assert shape_problems(["kubectl get x", f"{alt}:", "kubectl get y"], "en")  # an empty label
    assert shape_problems(["kubectl describe node x   # see Allocated"], "en")  # prose on a command
    assert shape_problems(["Taints: kubectl get nodes"], "en")  # a command inside prose
    assert shape_problems(["devices:\n  npu:\n    count: 4"], "en")  # a file that is not a heredoc
    assert shape_problems(["kubectl describe node -"], "en")  # a bare dash
    assert not shape_problems(["kubectl apply -f - <<'EOF'\n- a: b\nEOF"], "en")


def test_every_catalog_fix_has_the_shape() -> None:
    problems = [
        f"{where}: {problem}"
        for where, lines in catalog_fixes()
        for problem in shape_problems(lines, where.split("/")[2])
    ]
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_fix_has_the_shape(name: str, lang: str) -> None:
    for slug, lines in scenario_fixes(name, lang):
        assert not shape_problems(lines, lang), f"{name}/{lang}/{slug}: {shape_problems(lines, lang)}"


def test_memlock_drop_ins_are_heredocs_and_root_mode_is_the_labelled_alternative() -> None:
    for lang in LANGS:
        entry = load_catalog()["memlock-limit"]
        values = {"namespace": "llm", "pod": "p", "container": "c", "node": "n"}
        lines = render_entry(entry, lang, values).remediation
        text = "\n".join(lines)
        assert "sudo tee /etc/systemd/system/containerd.service.d/20-memlock.conf <<'EOF'\n[Service]" in text
        assert "sudo tee /etc/crio/crio.conf.d/20-memlock.conf <<'EOF'\n[crio.runtime]" in text
        assert "[Service]" not in shell_lines(lines)
        headings = [line for line in lines if line.startswith(alternative_prefix(lang))]
        assert len(headings) == 2, headings  # CRI-O (the runtime is not known), then root mode
        crio = render_entry(entry, lang, {**values, "runtime_crio": True}).remediation
        assert not [line for line in crio if line.startswith(alternative_prefix(lang))][:-1]
        assert "containerd.service.d" not in "\n".join(crio)


def test_korean_fix_lines_use_the_product_documents_terms() -> None:
    """Korean fixes say ResourceClaim (never a bare 클레임) and 게시 (never 보고/광고/노출) for publish."""
    banned = re.compile(r"광고|노출|보고합니다|클레임")
    found = [
        f"{slug}/{case}: {line.text}"
        for slug, entry in load_catalog().items()
        for case, words in entry.all_words()
        for line in words.remediation.get("ko", [])
        if banned.search(line.text)
    ]
    assert not found, "\n".join(found)
