"""A finding names the object the Pod's requests really come from (issue 13, "fixes fit the object").

A Pod that names its ResourceClaim itself (`resourceClaimName`, one claim shared by every replica, as in
google/dranet#139) must read "ResourceClaim npu-rdma-shared" in the title, summary and fix, never the
reference RCT npu-rdma it does not use; a Pod of an RCT keeps the RCT's words. Each scenario below is
a seed failure mode, once as the chart writes it (RCT) and once with the decode Pods naming one
ResourceClaim of the RCT's spec (the edit of the direct-claim-attribute-missing scenario).
"""

from __future__ import annotations

import re

import pytest

from testing.synthetic.builder import ClusterBuilder
from testing.synthetic.scenarios import SCENARIOS
from testing.synthetic.upstream_direct_claim import SHARED, _shared_claim_with_the_rct_spec
from tests.rules.rules_kit import Cluster, only, scenario

# (scenario, slug, English words naming the RCT, Korean words naming it); the claim's are the same
# with "RCT npu-rdma" -> "ResourceClaim npu-rdma-shared" and "npu-rdma RCT" -> "npu-rdma-shared
# ResourceClaim", the particle chosen for the new word.
CASES = [
    ("nic-no-pcieroot", "attribute-not-advertised", "RCT npu-rdma uses", "npu-rdma RCT가 셀렉터나"),
    ("one-nic-per-numa", "constraint-unsatisfiable", "requests of RCT npu-rdma", "npu-rdma RCT의 요청"),
    ("nic-vendor-mismatch", "selector-matches-nothing", "in RCT npu-rdma.", "RCT npu-rdma의 요청"),
    ("npu-tainted-by-driver", "device-tainted", "of RCT npu-rdma needs", "RCT npu-rdma의 요청"),
]
CLAIM_WORDS = {
    "RCT npu-rdma uses": "ResourceClaim npu-rdma-shared uses",
    "npu-rdma RCT가 셀렉터나": "npu-rdma-shared ResourceClaim이 셀렉터나",
    "requests of RCT npu-rdma": "requests of ResourceClaim npu-rdma-shared",
    "npu-rdma RCT의 요청": "npu-rdma-shared ResourceClaim의 요청",
    "in RCT npu-rdma.": "in ResourceClaim npu-rdma-shared.",
    "RCT npu-rdma의 요청": "ResourceClaim npu-rdma-shared의 요청",
    "of RCT npu-rdma needs": "of ResourceClaim npu-rdma-shared needs",
}
NAMES_THE_RCT = re.compile(r"RCT npu-rdma\b|npu-rdma RCT|resourceclaimtemplate npu-rdma|--rct npu-rdma")


def direct_claim(name: str) -> Cluster:
    """Scenario `name` with its Pending Pod naming ResourceClaim npu-rdma-shared (the RCT's spec), as
    the direct-claim scenario's edit writes it; the running Pods keep their allocated claims."""
    s = SCENARIOS[name]
    builder = ClusterBuilder(7, "v1", s.knobs)
    objects = s.build("v1")
    namespace, target = s.pending_pod
    running = [o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] != target]
    edited = _shared_claim_with_the_rct_spec([o for o in objects if o not in running], builder)
    pod = next(o for o in edited if o["kind"] == "Pod")
    assert pod["spec"]["resourceClaims"] == [{"name": "npu-rdma", "resourceClaimName": SHARED}]
    return Cluster(builder, [*running, *edited], (namespace, target))


def words_of(cluster: Cluster, slug: str, lang: str) -> tuple[str, list[str]]:
    rendered = only(cluster.findings(), slug).words(lang)
    return f"{rendered.title}\n{rendered.summary}", rendered.remediation


@pytest.mark.parametrize(("name", "slug", "en", "ko"), CASES)
def test_a_pod_that_names_its_claim_reads_the_claim(name: str, slug: str, en: str, ko: str) -> None:
    cluster = direct_claim(name)
    for lang, rct_words in (("en", en), ("ko", ko)):
        text, fix = words_of(cluster, slug, lang)
        assert CLAIM_WORDS[rct_words] in text, text
        assert not NAMES_THE_RCT.search(text), text
        assert not [line for line in fix if NAMES_THE_RCT.search(line)], fix


@pytest.mark.parametrize(("name", "slug", "en", "ko"), CASES)
def test_a_pod_of_an_rct_keeps_the_rct_words(name: str, slug: str, en: str, ko: str) -> None:
    cluster = scenario(name)
    for lang, rct_words in (("en", en), ("ko", ko)):
        text, _ = words_of(cluster, slug, lang)
        assert rct_words in text, text
        assert SHARED not in text and "ResourceClaim npu-rdma" not in text


def test_the_alignment_case_names_the_claim_in_both_languages() -> None:
    """The scenario of the issue: the summary and every fix line of the Pod that shares a claim."""
    cluster = scenario("direct-claim-attribute-missing")
    finding = only(cluster.findings(), "attribute-not-advertised")
    assert finding.case == "alignment-alternative"
    en, ko = finding.words("en"), finding.words("ko")
    assert en.summary.startswith("ResourceClaim npu-rdma-shared uses resource.kubernetes.io/numaNode")
    assert ko.summary.startswith("npu-rdma-shared ResourceClaim이 셀렉터나 제약 조건에서")
    for rendered in (en, ko):
        assert not [line for line in rendered.remediation if NAMES_THE_RCT.search(line)]


@pytest.mark.parametrize(
    ("name", "slug", "words"),
    [
        ("nic-no-pcieroot", "attribute-not-advertised", "ResourceClaim npu-rdma-shared uses"),
        ("nic-vendor-mismatch", "selector-matches-nothing", "in ResourceClaim npu-rdma-shared."),
    ],
)
def test_a_pod_with_an_rct_and_a_named_claim_names_the_failing_one(name: str, slug: str, words: str) -> None:
    """Each claim is named for itself: what a shared claim needs is that claim's, and its fix re-creates
    that claim, even when the Pod also uses an RCT (here one that asks for nothing)."""
    cluster = direct_claim(name)
    pod = cluster.raw("Pod", cluster.pod)
    pod["spec"]["resourceClaims"].append({"name": "scratch", "resourceClaimTemplateName": "scratch-npu"})
    generated = f"{cluster.pod}-scratch-x7k2p"
    pod["status"]["resourceClaimStatuses"] = [{"name": "scratch", "resourceClaimName": generated}]
    owner = {"apiVersion": "v1", "kind": "Pod", "name": cluster.pod, "uid": pod["metadata"].get("uid", "")}
    empty = {"devices": {"requests": []}}
    cluster.objects += [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "scratch-npu", "namespace": cluster.namespace, "uid": "scratch-uid"},
            "spec": {"spec": empty},
        },
        {  # the claim the controller generated from it, allocated (it asks for no device)
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": generated, "namespace": cluster.namespace, "ownerReferences": [owner]},
            "spec": empty,
            "status": {"allocation": {"devices": {"results": []}}},
        },
    ]
    text, fix = words_of(cluster, slug, "en")
    assert words in text, text
    assert "scratch-npu" not in text
    assert any(f"kubectl -n {cluster.namespace} delete resourceclaim {SHARED}" in line for line in fix), fix
    assert not [line for line in fix if "scratch-npu" in line], fix


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_host_network_pod_that_names_its_claim_is_told_to_re_create_that_claim(lang: str) -> None:
    """The hostNetwork alternative drops the NIC request from what the Pod really uses."""
    direct = only(direct_claim("nri-host-network").findings(), "nri-sandbox-failed").words(lang).remediation
    assert [line for line in direct if "ResourceClaim npu-rdma-shared" in line], direct
    assert not [line for line in direct if "RCT" in line], direct
    rct = only(scenario("nri-host-network").findings(), "nri-sandbox-failed").words(lang).remediation
    assert [line for line in rct if "RCT" in line and "dra.net" in line], rct
    assert not [line for line in rct if SHARED in line], rct
