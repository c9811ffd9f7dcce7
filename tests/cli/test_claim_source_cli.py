"""`kubectl rbln why` on a Pod that names its ResourceClaim (issue 13): what the operator reads names
that claim, never the RCT npu-rdma the Pod does not use, in English and in Korean; and the drawing of
the closest node says whether the shared claim can be allocated there, not how many "more Pods" fit
(a ResourceClaim the Pods name is allocated once and shared by all of them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kubectl_rbln.catalog import sentence
from testing.synthetic.scenarios import SCENARIOS

NAMES_THE_RCT = re.compile(r"RCT npu-rdma\b|npu-rdma RCT|resourceclaimtemplate npu-rdma|--rct npu-rdma")
SUMMARY = {
    "en": "ResourceClaim npu-rdma-shared uses resource.kubernetes.io/numaNode in a selector or a",
    "ko": "npu-rdma-shared ResourceClaim이 셀렉터나 제약 조건에서 사용하는 속성을",
}
CLOSEST = {
    "en": "npu-node-01: ResourceClaim serving/npu-rdma-shared does not fit (one allocation, shared by "
    "its Pods)",
    "ko": "npu-node-01: ResourceClaim serving/npu-rdma-shared를 할당할 수 없음(한 번 할당해 모든 Pod가 "
    "함께 씀)",
}


def bundle(scenario: str, folder: Path) -> str:
    path = folder / f"{scenario}.json"
    items = SCENARIOS[scenario].build("v1")
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_why_names_the_claim_the_pod_uses(inprocess_rbln, tmp_path: Path, lang: str) -> None:
    path = bundle("direct-claim-attribute-missing", tmp_path)
    code, out, err = inprocess_rbln("why", "-f", path, "--lang", lang)
    assert code == 1, out + err
    assert SUMMARY[lang] in " ".join(line.strip() for line in out.splitlines()), out
    assert not NAMES_THE_RCT.search(out), [line for line in out.splitlines() if NAMES_THE_RCT.search(line)]
    assert CLOSEST[lang] in out.splitlines(), out
    shared = "serving/npu-rdma-shared"
    assert sentence("topo-summary-fit", lang, node="npu-node-01", count=0, pods="Pods", rct=shared) not in out


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_why_keeps_the_rct_words_for_a_pod_of_the_rct(inprocess_rbln, tmp_path: Path, lang: str) -> None:
    code, out, _ = inprocess_rbln("why", "-f", bundle("nic-no-numanode", tmp_path), "--lang", lang)
    assert code == 1
    flat = " ".join(line.strip() for line in out.splitlines())
    assert {"en": "RCT npu-rdma uses", "ko": "npu-rdma RCT가 셀렉터나"}[lang] in flat, out
    assert "ResourceClaim npu-rdma" not in out
    rct = "serving/npu-rdma"
    fits = sentence("topo-summary-fit", lang, node="npu-node-01", count=0, pods="Pods", rct=rct)
    assert fits in out.splitlines(), out
