"""The findings catalog: complete in both languages, consistent, documented, and safe to render."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.catalog import (
    SEVERITIES,
    CatalogEntry,
    load_catalog,
    missing_values,
    parse_catalog,
    pick_language,
    placeholders,
    render,
)
from kubectl_rbln.catalog.fix import ssh_command
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.scenarios import SCENARIOS

REPO = Path(__file__).resolve().parents[2]

WHY_SLUGS = [
    "dra-api-unavailable", "device-class-missing", "claim-template-missing", "claim-not-created",
    "claim-being-deleted", "shared-claim-node-unusable", "claim-reserved-for-full",
    "admin-access-label-missing",
    "claim-not-allocated", "claim-stale", "driver-slices-missing", "attribute-not-advertised",
    "selector-matches-nothing",
    "selector-error", "constraint-unsatisfiable", "insufficient-devices", "devices-exhausted",
    "feature-gate-disabled", "rds-label-missing", "memlock-limit", "device-plugin-mode", "not-device-related",
    "device-tainted", "device-taint-eviction",
    "binding-conditions-pending", "binding-failed", "binding-gate-disabled",
    "extended-resource-request",
]  # fmt: skip
OTHER_SLUGS = [
    "nic-count-mismatch", "npu-count-mismatch", "rsd-group-missing", "rds-devices-missing",
    "allocation-constraint-violated",
    "source-degraded", "scheduler-error", "kubelet-prepare-failed", "pod-crashing",
    "simulation-disagrees",
    "nri-sandbox-failed",
    # issue 14: pod-devices, per device
    "npu-missing", "npu-not-allocated", "nic-not-in-pod", "rdma-device-missing", "uverbs-missing",
    "rdma-port-down", "device-unhealthy",
    "cause-not-recognised",  # issue 21: a stuck stage whose cause no rule knows
]  # fmt: skip
ALL_SLUGS = WHY_SLUGS + OTHER_SLUGS
HANGUL = re.compile(r"[\uac00-\ud7a3]")
COMMAND = re.compile(r"^(kubectl|sudo|ls|lspci) ")


@pytest.fixture(scope="module")
def catalog() -> dict[str, CatalogEntry]:
    return load_catalog()


def test_every_slug_of_the_issues_is_in_the_catalog(catalog: dict[str, CatalogEntry]) -> None:
    assert sorted(catalog) == sorted(ALL_SLUGS)


def test_catalog_is_loaded_once(catalog: dict[str, CatalogEntry]) -> None:
    assert load_catalog() is catalog


@pytest.mark.parametrize("slug", ALL_SLUGS)
def test_entry_is_complete_in_both_languages(catalog: dict[str, CatalogEntry], slug: str) -> None:
    entry = catalog[slug]
    assert entry.severity in SEVERITIES
    for lang in ("en", "ko"):
        assert entry.title[lang].strip(), lang
        assert entry.summary[lang].strip(), lang
        assert entry.remediation[lang], lang
    for text in (entry.title["ko"], entry.summary["ko"]):
        assert HANGUL.search(text), f"{slug}: Korean text is not Korean: {text}"
    english = "".join(line.text for line in entry.remediation["en"])
    assert not HANGUL.search(entry.title["en"] + entry.summary["en"] + english)


@pytest.mark.parametrize("slug", ALL_SLUGS)
def test_same_placeholders_in_both_languages_field_by_field(
    catalog: dict[str, CatalogEntry], slug: str
) -> None:
    entry = catalog[slug]
    assert placeholders(entry.title["en"]) == placeholders(entry.title["ko"])
    assert placeholders(entry.summary["en"]) == placeholders(entry.summary["ko"])
    en_lines = set().union(*(placeholders(line.text) for line in entry.remediation["en"]))
    ko_lines = set().union(*(placeholders(line.text) for line in entry.remediation["ko"]))
    assert en_lines == ko_lines


@pytest.mark.parametrize("slug", ALL_SLUGS)
def test_commands_are_identical_in_both_languages(catalog: dict[str, CatalogEntry], slug: str) -> None:
    """A Korean reader must run exactly the command an English reader runs."""
    entry = catalog[slug]
    en = [line.text for line in entry.remediation["en"] if COMMAND.match(line.text)]
    ko = [line.text for line in entry.remediation["ko"] if COMMAND.match(line.text)]
    assert en == ko


@pytest.mark.parametrize("slug", ALL_SLUGS)
def test_docs_page_exists_in_the_rule_page_shape(catalog: dict[str, CatalogEntry], slug: str) -> None:
    entry = catalog[slug]
    assert entry.docs == f"docs/findings/{slug}.md"
    page = (REPO / entry.docs).read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", page, flags=re.MULTILINE)
    assert headings == ["What it means", "Why it matters", "How `why` detects it", "How to fix", "Example"]
    assert page.startswith(f"# {slug}\n\nSeverity: {entry.severity}\n")


def test_rct_changes_delete_before_apply(catalog: dict[str, CatalogEntry]) -> None:
    """Kubernetes rejects an apply that changes an existing RCT's spec (seed 001, item (5))."""
    for entry in catalog.values():
        for lang in ("en", "ko"):
            lines = [line.text for line in entry.remediation[lang]]
            for i, line in enumerate(lines):
                if re.match(r"kubectl -n \{namespace\} apply -f .*rct", line) and "delete" in " ".join(lines):
                    assert any("delete resourceclaimtemplate" in prev for prev in lines[:i]), entry.slug


def test_missing_numa_attribute_puts_the_proven_rct_in_place() -> None:
    """npu-no-numanode: no NPU publishes numaNode, so the fix writes the RCT the simulation proves
    (numa-unaligned), then deletes the RCT before it creates it from that file (seed 001, item (5))."""
    snapshot = build_snapshot(SCENARIOS["npu-no-numanode"].build("v1"))
    report = why(snapshot, WhyRequest((), "serving"))
    finding = next(f for f in report.findings if f.slug == "attribute-not-advertised")
    text = "\n".join(finding.words("en").remediation)
    written = (
        "kubectl rbln suggest-rct -n serving --rct npu-rdma --recipe numa-unaligned > npu-rdma.suggested.yaml"
    )
    assert written in text
    assert text.index(written) < text.index("delete resourceclaimtemplate npu-rdma")
    assert text.index("delete resourceclaimtemplate npu-rdma") < text.index(
        "create -f npu-rdma.suggested.yaml"
    )


def test_without_a_proven_rct_the_fix_only_reads(catalog: dict[str, CatalogEntry]) -> None:
    """No shared remedy computed (no cluster to prove it on): the fix is suggest-rct, which only reads."""
    values = {"namespace": "llm", "rct": "npu-rdma", "api_version": "v1", "direct_claim": False}
    lines = render(catalog["attribute-not-advertised"], "en", **values).remediation
    assert "kubectl rbln suggest-rct -n llm --rct npu-rdma" in lines
    assert not [line for line in lines if " delete " in line or " create " in line or " apply " in line]


def test_memlock_clears_sandboxes_before_restarting_containerd_on_the_same_node() -> None:
    """The drop-in, the sandbox cleanup and the restart are one script on the Pod's node, in that order:
    the restart never runs without the cleanup (two sandboxes of one name make containerd exit)."""
    values = {"namespace": "llm", "pod": "p", "container": "c", "node": "n1", "fix_nodes": ["n1"]}
    fix = Finding("memlock-limit", {**values, "runtime_containerd": True}).fix("en")
    change = next(step for step in fix.recommended.steps if step.kind == "change")
    script = list(change.script)
    cleanup = script.index("sudo crictl pods --state NotReady -q | xargs -r sudo crictl rmp")
    restart = script.index("sudo systemctl daemon-reload && sudo systemctl restart containerd")
    drop_in = next(i for i, line in enumerate(script) if "containerd.service.d/20-memlock.conf" in line)
    assert drop_in < cleanup < restart and change.node == "n1"
    assert script[drop_in].startswith('printf "%s\\n" "[Service]" "LimitMEMLOCK=infinity" | sudo tee ')
    assert change.commands == (ssh_command("n1", script, "change"),)
    crio = Finding("memlock-limit", {**values, "runtime_crio": True}).fix("en")
    written = " ".join(line for step in crio.recommended.steps for line in step.script)
    assert '"default_ulimits = [\\"memlock=-1:-1\\"]"' in written and "containerd" not in written


def test_feature_gate_and_rds_label_commands(catalog: dict[str, CatalogEntry]) -> None:
    gate = render(
        catalog["feature-gate-disabled"], "ko", gate="DRAConsumableCapacity", namespace="llm", rct="x"
    )
    note = next(line for line in gate.remediation if "--feature-gates=" in line)
    assert "--feature-gates=DRAConsumableCapacity=true" in note
    assert "kube-apiserver, kube-scheduler, kubelet" in note
    rds = render(catalog["rds-label-missing"], "en", label_nodes=["node/npu-node-1", "node/npu-node-2"])
    label = "kubectl label node/npu-node-1 node/npu-node-2 rebellions.ai/rds.present=true --overwrite"
    assert rds.remediation.index(label + " --dry-run=server") < rds.remediation.index(label)
    assert not any("kubectl label" in line for line in render(catalog["rds-label-missing"], "en").remediation)


def test_render_fills_values_and_keeps_unknown_placeholders_visible(catalog: dict[str, CatalogEntry]) -> None:
    values = {"class": "npu.rebelions.ai", "namespace": "llm", "other_class": True}
    rendered = render(catalog["device-class-missing"], "ko", **values)
    assert rendered.lang == "ko"
    assert rendered.title == "DeviceClass가 없습니다: npu.rebelions.ai"
    assert "kubectl rbln suggest-rct -n llm --rct {rct}" in rendered.remediation


def test_render_unescapes_literal_braces(catalog: dict[str, CatalogEntry]) -> None:
    rendered = render(catalog["claim-not-created"], "en", namespace="llm", pod="p")
    assert "kubectl -n llm get pod p -o jsonpath='{.status.resourceClaimStatuses}'" in rendered.remediation


def test_render_falls_back_to_english_and_never_raises(catalog: dict[str, CatalogEntry]) -> None:
    class Hostile:
        def __str__(self) -> str:
            raise RuntimeError("no")

    entry = catalog["pod-crashing"]
    rendered = render(entry, "fr", container=Hostile(), pod=["a", "b"])
    assert rendered.lang == "en"
    assert rendered.title == entry.title["en"]  # the hostile value leaves the template as it was
    assert "Pod a, b" in rendered.summary


@pytest.mark.parametrize(
    ("flag", "env", "expected"),
    [
        ("ko", {"LANG": "en_US.UTF-8"}, "ko"),
        ("en", {"LANG": "ko_KR.UTF-8"}, "en"),
        ("de", {}, "en"),
        (None, {"LANG": "ko_KR.UTF-8"}, "ko"),
        (None, {"LC_ALL": "ko_KR.UTF-8", "LANG": "en_US.UTF-8"}, "ko"),
        (None, {"LC_ALL": "C", "LANG": "ko_KR.UTF-8"}, "en"),
        (None, {"LC_ALL": "", "LANG": "ko"}, "ko"),
        (None, {}, "en"),
    ],
)
def test_pick_language(flag: str | None, env: dict[str, str], expected: str) -> None:
    assert pick_language(flag, env) == expected


def test_malformed_catalog_is_rejected() -> None:
    good = {"title": {"en": "t"}, "summary": {"en": "s"}, "remediation": {"en": ["x"]}}
    assert parse_catalog({"a": {"severity": "info", **good}})["a"].docs == "docs/findings/a.md"
    with pytest.raises(ValueError, match="severity"):
        parse_catalog({"a": {"severity": "fatal", **good}})
    with pytest.raises(ValueError, match="remediation"):
        parse_catalog({"a": {"severity": "info", **good, "remediation": {"en": "x"}}})


def test_missing_values_names_what_a_check_forgot(catalog: dict[str, CatalogEntry]) -> None:
    entry = catalog["rds-label-missing"]
    assert missing_values(entry, {"node": "npu-node-1"}) == set()
    assert missing_values(catalog["claim-not-created"], {"namespace": "llm"}, "ko") == {"pod"}


def _lists(catalog: dict[str, CatalogEntry]):
    for slug, entry in catalog.items():
        for case, words in entry.all_words():
            for lang, lines in words.remediation.items():
                yield f"{slug}/{case or '-'}/{lang}", lines


def test_every_fix_that_changes_an_rct_ends_by_re_creating_the_pods(catalog: dict[str, CatalogEntry]) -> None:
    """Issue 13, 1: a claim never follows its RCT, so a fix that re-creates an RCT must re-create the Pods."""
    for where, lines in _lists(catalog):
        deletes = [i for i, line in enumerate(lines) if "delete resourceclaimtemplate" in line.text]
        for i in deletes:
            after = lines[i:]
            wanted = lines[i].conditions
            restart = [
                line
                for line in after
                if "rollout restart {restart}" in line.text and line.conditions - {"restart"} <= wanted
            ]
            delete_pod = [
                line
                for line in after
                if line.text.endswith("delete pod {pod}") and line.conditions - {"restart", "pod"} <= wanted
            ]
            assert restart and delete_pod, f"{where}: line {i} re-creates the RCT but not the Pods"
