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
from tests.diagnose.fix_walk import (
    LANGS,
    SWEPT,
    catalog_fixes,
    paste_problems,
    pod_devices_paste_fixes,
    scenario_fixes,
    scenario_paste_fixes,
    shape_problems,
    shell_lines,
    swept_catalog_fixes,
)


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


def test_memlock_drop_ins_are_one_line_writes_and_root_mode_is_the_labelled_alternative() -> None:
    """No heredoc (the terminal view indents it, so a pasted EOF never ends it): each drop-in is one
    `printf ... | sudo tee FILE` line, and no line of a drop-in (`[Service]`) is ever a command."""
    for lang in LANGS:
        entry = load_catalog()["memlock-limit"]
        values = {"namespace": "llm", "pod": "p", "container": "c", "node": "n"}
        lines = render_entry(entry, lang, values).remediation
        text = "\n".join(lines)
        unit = 'printf "%s\\n" "[Service]" "LimitMEMLOCK=infinity" | sudo tee '
        assert unit + "/etc/systemd/system/containerd.service.d/20-memlock.conf >/dev/null" in lines
        crio = 'printf "%s\\n" "[crio.runtime]" "default_ulimits = [\\"memlock=-1:-1\\"]" | sudo tee '
        assert crio + "/etc/crio/crio.conf.d/20-memlock.conf >/dev/null" in lines
        assert "<<" not in text and "[Service]" not in text.split("\n")
        headings = [line for line in lines if line.startswith(alternative_prefix(lang))]
        assert len(headings) == 2, headings  # CRI-O (the runtime is not known), then root mode
        crio_lines = render_entry(entry, lang, {**values, "runtime_crio": True}).remediation
        assert not [line for line in crio_lines if line.startswith(alternative_prefix(lang))][:-1]
        assert "containerd.service.d" not in "\n".join(crio_lines)


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


def test_the_paste_rules_catch_what_they_name() -> None:
    assert not paste_problems(["kubectl get x"], "en", [])
    assert paste_problems(["kubectl -n a logs <pod>"], "en", [])  # a placeholder
    assert paste_problems(["sudo tee /etc/x.conf <<'EOF'\n[Service]\nEOF"], "en", ["n"])  # a heredoc
    assert paste_problems(["kubectl edit rblnclusterpolicy"], "en", [])  # interactive
    assert paste_problems(["kubectl -n a edit daemonset x"], "en", [])
    assert paste_problems(["sudo systemctl restart containerd"], "en", [])  # a node step, no node
    assert not paste_problems(["sudo systemctl restart containerd"], "en", ["n"])
    assert paste_problems(["kubectl label node n a=b"], "en", [])  # no preview
    previewed = ["kubectl label node n a=b --dry-run=server", "kubectl label node n a=b"]
    assert not paste_problems(previewed, "en", [])
    patch = "kubectl -n a patch daemonset d -p '{}'"
    assert paste_problems([patch], "en", [])
    assert not paste_problems([patch + " --dry-run=server", patch], "en", [])


def test_every_swept_catalog_fix_pastes() -> None:
    problems = [
        f"{where}: {problem}"
        for where, lines, nodes in swept_catalog_fixes()
        for problem in paste_problems(lines, where.split("/")[2], nodes)
    ]
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_swept_scenario_fix_pastes(name: str, lang: str) -> None:
    for slug, lines, nodes in scenario_paste_fixes(name, lang):
        problems = paste_problems(lines, lang, nodes)
        assert not problems, f"{name}/{lang}/{slug}: {problems}"


@pytest.mark.parametrize("lang", LANGS)
def test_every_swept_pod_devices_fix_pastes(lang: str) -> None:
    for slug, lines, nodes in pod_devices_paste_fixes(lang):
        assert slug not in SWEPT or not paste_problems(lines, lang, nodes), (
            f"pod-devices/{lang}/{slug}: {paste_problems(lines, lang, nodes)}"
        )
