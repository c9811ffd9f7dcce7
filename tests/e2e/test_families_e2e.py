"""Issue 12, point 4, end to end: `kubectl rbln why -f <bundle>` on each family's scenario (the
claim's own state too), in English and Korean, names the culprit (the CLI as a subprocess; slow
lane, like all of tests/e2e)."""

from __future__ import annotations

import json

import pytest

from kubectl_rbln.domain import DEFAULT_RCT
from testing.synthetic.builder import dumps_bundle
from testing.synthetic.scenarios import SCENARIOS

# scenario -> (slug, words of its English title, names the English and Korean text must both show)
FAMILIES = {
    "rct-missing-no-reference-classes": (
        "claim-template-missing",
        "ResourceClaimTemplate not found",
        [DEFAULT_RCT],
    ),
    "rct-in-other-namespace": ("claim-template-missing", "only in: default", [DEFAULT_RCT, "default"]),
    "all-mode-devices-held": ("devices-exhausted", "allocationMode: All", ["coder-decode-5f9vnmhcjt-5xnpt"]),
    "free-nics-lost-rdma": ("devices-exhausted", "Free, but rdma=false", ["rdma=false", "npu-node-01"]),
}
# the claim's own state (testing/synthetic/upstream_claim_state.py): the finding is the only one
ALONE = {
    "claim-not-created": ("claim-not-created", "not created yet", ["npu-rdma"]),
    "claim-being-deleted": ("claim-being-deleted", "is being deleted", ["npu-shared", "delete-protection"]),
    "shared-claim-cordoned-node": (
        "shared-claim-node-unusable",
        "allocated on npu-node-01",
        ["kubectl uncordon npu-node-01"],
    ),
    "claim-reserved-for-full": ("claim-reserved-for-full", "256 consumers", ["resourceClaimTemplateName"]),
    "admin-access-old-label": (
        "admin-access-label-missing",
        "resource.kubernetes.io/admin-access=true",
        ["kubectl label namespace rbln-monitoring resource.kubernetes.io/admin-access=true"],
    ),
}


@pytest.mark.parametrize("name", sorted(FAMILIES) + sorted(ALONE))
def test_why_file_names_the_culprit(name, rbln, tmp_path):
    scenario = SCENARIOS[name]
    slug, title, names = FAMILIES.get(name) or ALONE[name]
    bundle = tmp_path / f"{name}.json"
    bundle.write_text(dumps_bundle(scenario.build("v1")), encoding="utf-8")
    namespace, pod = scenario.pending_pod
    run = rbln("why", "-f", str(bundle), "-n", namespace, pod, "-o", "json")
    assert run.returncode == 1, run.stderr  # an error finding
    findings = json.loads(run.stdout)["pods"][0]["findings"]
    assert findings[0]["slug"] == slug, [f["slug"] for f in findings]
    if name in ALONE:
        assert [f["slug"] for f in findings] == [slug]
    assert title in findings[0]["title"]
    assert not scenario.must_not & {f["slug"] for f in findings}
    for lang in ("en", "ko"):
        text = rbln("why", "-f", str(bundle), "-n", namespace, pod, "--lang", lang)
        for word in names:
            assert word in text.stdout, f"{lang}: {word!r} not in\n{text.stdout}"
