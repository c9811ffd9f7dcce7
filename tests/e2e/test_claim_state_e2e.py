"""Issue 12, point 4, the claim's own state, end to end: `kubectl rbln why -f <bundle>` on each family's
scenario (testing/synthetic/upstream_claim_state.py), in English and Korean, names the culprit (the CLI
as a subprocess; slow lane, like all of tests/e2e)."""

from __future__ import annotations

import json

import pytest

from testing.synthetic.builder import dumps_bundle
from testing.synthetic.scenarios import SCENARIOS

# scenario -> (slug, words of its English title, names the English and Korean text must both show)
FAMILIES = {
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


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_why_file_names_the_claim_state(name, rbln, tmp_path):
    scenario = SCENARIOS[name]
    slug, title, names = FAMILIES[name]
    bundle = tmp_path / f"{name}.json"
    bundle.write_text(dumps_bundle(scenario.build("v1")), encoding="utf-8")
    namespace, pod = scenario.pending_pod
    run = rbln("why", "-f", str(bundle), "-n", namespace, pod, "-o", "json")
    assert run.returncode == 1, run.stderr  # an error finding
    findings = json.loads(run.stdout)["pods"][0]["findings"]
    assert [f["slug"] for f in findings] == [slug]
    assert title in findings[0]["title"]
    for lang in ("en", "ko"):
        text = rbln("why", "-f", str(bundle), "-n", namespace, pod, "--lang", lang)
        for word in names:
            assert word in text.stdout, f"{lang}: {word!r} not in\n{text.stdout}"
