"""The rule registry and the engine: one rule per slug, declared order, declared suppressions.

These are what make "add a finding" a one-rule change (docs/add-a-finding.md): if a second rule
starts emitting a slug, or a rule emits a slug it did not declare, or a slug's values stop
filling its catalog words, a test here names it.
"""

from __future__ import annotations

import cProfile
import pstats
import re
from pathlib import Path

import pytest

from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.catalog import load_catalog, missing_values
from kubectl_rbln.diagnose.context import pod_context
from kubectl_rbln.diagnose.engine import RuleError, run_rules
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.diagnose.rules import WHY_RULES
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.remedy.attach import Remedies, is_remedy_value
from kubectl_rbln.render.check_table import render_check
from kubectl_rbln.render.why_table import render_why
from testing.synthetic.scenarios import SCENARIOS

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_rbln"
LANGS = ("en", "ko")
# A different command proves the same cause from other evidence (no Pod, or from inside the Pod):
# the words are the same catalog entry; the constructor lives with that evidence.
SECOND_BUILDER = {
    "attribute-not-advertised": "diagnose/attrs.py",  # the RCT against every driver, no Pod needed
    "constraint-unsatisfiable": "diagnose/attrs.py",  # attribute value formats that cannot match
    "feature-gate-disabled": "diagnose/attrs.py",  # a stored RCT that lost a gated field
    "memlock-limit": "diagnose/pod_devices.py",  # `ulimit -H -l` read inside the container
    "rds-label-missing": "diagnose/pod_devices.py",  # /dev/rblnfs* seen on an unlabelled node
}
BARE_DASH = re.compile(r"(^| )-( |$)")
HEREDOC = re.compile(r"<<-?'(\w+)'")


def _built_in() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if "synthetic" in path.parts:
            continue
        for match in re.finditer(r'Finding\(\s*"([a-z-]+)"', path.read_text(encoding="utf-8")):
            found.setdefault(match.group(1), set()).add(path.relative_to(PACKAGE).as_posix())
    return found


def test_each_slug_is_emitted_by_exactly_one_why_rule() -> None:
    owners: dict[str, str] = {}
    for current in WHY_RULES:
        for slug in current.emits:
            assert slug not in owners, f"{slug}: emitted by {owners[slug]} and {current.name}"
            owners[slug] = current.name
    assert len({r.name for r in WHY_RULES}) == len(WHY_RULES)


def test_rules_declare_only_catalog_slugs() -> None:
    catalog = load_catalog()
    for current in WHY_RULES:
        assert set(current.emits) <= set(catalog), current.name
        assert set(current.suppresses) <= set(catalog), current.name


def test_each_slug_is_built_in_one_module() -> None:
    for slug, modules in _built_in().items():
        extra = modules - {SECOND_BUILDER.get(slug)}
        assert len(extra) == 1, f"{slug} is built in {sorted(modules)}: give it one constructor"


def test_every_catalog_slug_is_built_somewhere() -> None:
    assert set(load_catalog()) == set(_built_in())


def _snapshot(name: str, shape: str = "v1"):
    return build_snapshot(SCENARIOS[name].build(shape))


def test_a_rule_that_emits_an_undeclared_slug_is_caught() -> None:
    @rule("test.liar", emits=("pod-crashing",))
    def liar(ctx):  # type: ignore[no-untyped-def]
        yield Finding("memlock-limit", ctx.values(container="c"), {})

    snapshot = _snapshot("deviceclass-missing")
    ctx = pod_context(snapshot, snapshot.pod(*SCENARIOS["deviceclass-missing"].pending_pod))
    with pytest.raises(RuleError, match="memlock-limit"):
        run_rules(ctx, (liar,))


def test_a_root_cause_hides_its_symptoms_as_declared() -> None:
    """device-class-missing declares claim-not-allocated and driver-slices-missing redundant."""
    snapshot = _snapshot("deviceclass-missing")
    report = why(snapshot, WhyRequest((f"{'/'.join(SCENARIOS['deviceclass-missing'].pending_pod)}",)))
    slugs = [f.slug for f in report.findings]
    assert "device-class-missing" in slugs
    assert not {"claim-not-allocated", "driver-slices-missing"} & set(slugs)


def _report_texts(report, lang: str) -> list[str]:
    texts = []
    for finding in report.findings:
        words = finding.words(lang)
        texts += [words.title, words.summary, *words.remediation]
    return texts


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_rules_values_fill_its_words_in_both_languages(name: str) -> None:
    """For every finding why and check raise on every scenario: no placeholder left, in en and ko."""
    snapshot = _snapshot(name)
    namespace = SCENARIOS[name].pending_pod[0]
    reports = [
        why(snapshot, WhyRequest((), namespace)),
        run_check(snapshot, CheckRequest(namespace, "npu-rdma")),
    ]
    catalog = load_catalog()
    for report in reports:
        for finding in report.findings:
            for lang in LANGS:
                left = missing_values(catalog[finding.slug], finding.values, lang, finding.case)
                assert not left, f"{name}: {finding.slug}/{finding.case}: {lang} lacks {left}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_why_and_check_print_no_placeholder_and_no_bare_dash(name: str, lang: str) -> None:
    snapshot = _snapshot(name)
    namespace = SCENARIOS[name].pending_pod[0]
    report = why(snapshot, WhyRequest((), namespace))
    checked = run_check(snapshot, CheckRequest(namespace, "npu-rdma"))
    outputs = [
        render_why(report.to_document(lang), report.closest_views(snapshot), color=False, wide=True),
        render_check(checked.to_document(lang), color=False, wide=True),
        *_report_texts(report, lang),
        *_report_texts(checked, lang),
    ]
    for text in outputs:
        heredoc_end = None
        for line in text.splitlines():
            assert not re.search(r"(?<!\{)\{[a-z_]+\}(?!\})", line), f"{name}/{lang}: {line!r}"
            if heredoc_end is not None:  # a heredoc's body is a file's text, not a command
                heredoc_end = None if line.strip() == heredoc_end else heredoc_end
                continue
            heredoc = HEREDOC.search(line)
            heredoc_end = heredoc.group(1) if heredoc else None
            command = line.lstrip()
            if command.startswith(("kubectl ", "sudo ")):
                if heredoc:  # `-f -` reads the heredoc that follows
                    command = command.replace(" -f - ", " -f STDIN ")
                assert not BARE_DASH.search(command), f"{name}/{lang}: bare '-' in {line!r}"


def _allocator_calls(profile: cProfile.Profile) -> dict[str, int]:
    return {
        func[2]: count
        for func, (count, *_rest) in pstats.Stats(profile).stats.items()  # type: ignore[attr-defined]
        if func[0].endswith("dra/allocator.py")
    }


def _remedy_calls(snapshot: Snapshot, findings: list[Finding]) -> dict[str, int]:
    """What the shared remedies' own proofs (suggest-rct's simulation) cost for these findings."""
    again = [
        Finding(f.slug, {k: v for k, v in f.values.items() if not is_remedy_value(k)}, case=f.case)
        for f in findings
    ]
    features = allocator_features(choose_features(snapshot, None, None))
    profile = cProfile.Profile()
    profile.enable()
    Remedies(snapshot, features).attach(again)
    profile.disable()
    return _allocator_calls(profile)


def test_why_text_runs_the_allocator_once_per_node() -> None:
    """The verdict, the node table and the drawing of the closest node share one simulation (the shared
    remedy proves its RCT with simulations of its own, counted apart)."""
    name = "one-nic-per-numa"
    snapshot = _snapshot(name)
    profile = cProfile.Profile()
    profile.enable()
    report = why(snapshot, WhyRequest(("/".join(SCENARIOS[name].pending_pod),)))
    render_why(report.to_document("en"), report.closest_views(snapshot), color=False, wide=False)
    profile.disable()
    calls = _allocator_calls(profile)
    remedies = _remedy_calls(snapshot, report.findings)
    assert report.diagnoses[0].closest_node is not None  # a drawing was made
    assert calls.get("simulate_cluster", 0) - remedies.get("simulate_cluster", 0) == 1
    # at most once per node: nodes that differ only by their names share one run (dra/node_memo.py)
    assert 1 <= calls.get("allocate", 0) - remedies.get("allocate", 0) <= len(snapshot.nodes)
