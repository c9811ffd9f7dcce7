"""Fixes fit the object (issue 13, bullet 3): a Pod that names its ResourceClaim itself
(`resourceClaimName`) is told to re-create that claim, never to delete and re-create an RCT it
does not use; a Pod that uses an RCT keeps the RCT fix and its rollout."""

from __future__ import annotations

import re

import pytest

from kubectl_rbln.catalog import load_catalog, render_entry

LANGS = ("en", "ko")
VALUES = {
    "namespace": "llm",
    "pod": "decode-0",
    "rct": "npu-rdma",
    "claim": "shared-npu",
    "restart": "deployment/decode",
    "api_version": "v1",
}
NAMES_THE_RCT = re.compile(r"resourceclaimtemplate npu-rdma|--rct npu-rdma|npu-rdma\.yaml")


def _rct_fixes() -> list[tuple[str, str | None]]:
    found = []
    for slug, entry in load_catalog().items():
        for case, words in entry.all_words():
            if any("delete resourceclaimtemplate" in line.text for line in words.remediation["en"]):
                found.append((slug, case))
    return found


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("slug", "case"), _rct_fixes())
def test_a_direct_claim_gets_a_claim_fix(slug: str, case: str | None, lang: str) -> None:
    entry = load_catalog()[slug]
    direct = render_entry(entry, lang, {**VALUES, "direct_claim": True}, case).remediation
    assert not [line for line in direct if NAMES_THE_RCT.search(line)], direct
    text = "\n".join(direct)
    assert "kubectl -n llm get resourceclaim shared-npu -o yaml > shared-npu.yaml" in text
    assert "kubectl -n llm delete resourceclaim shared-npu" in text
    assert "kubectl -n llm apply -f shared-npu.yaml" in text
    assert "kubectl -n llm rollout restart deployment/decode" in text


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("slug", "case"), _rct_fixes())
def test_an_rct_pod_keeps_the_rct_fix(slug: str, case: str | None, lang: str) -> None:
    entry = load_catalog()[slug]
    lines = render_entry(entry, lang, {**VALUES, "direct_claim": False}, case).remediation
    assert "kubectl -n llm delete resourceclaimtemplate npu-rdma" in "\n".join(lines)
    assert not any("resourceclaim shared-npu" in line for line in lines)
    assert "kubectl -n llm rollout restart deployment/decode" in lines
