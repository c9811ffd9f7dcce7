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


# the conditions under which an entry's recommended path is its remedy (a class of no reference driver)
REMEDY_CONDITIONS = {"other_class": True}


def _remedy_fixes(name: str) -> list[tuple[str, str | None]]:
    """Every slug and case whose words put a shared remedy (`{rct_fix}`, `{claim_fix}`) in place."""
    found = []
    for slug, entry in load_catalog().items():
        for case, words in entry.all_words():
            if any("{" + name + "}" in line.text for line in words.remediation["en"]):
                found.append((slug, case))
    return found


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("slug", "case"), _remedy_fixes("claim_fix"))
def test_a_direct_claim_gets_the_claim_remedy(slug: str, case: str | None, lang: str) -> None:
    """As Remedies.attach leaves it for a Pod that names its claim: a claim remedy and no RCT remedy."""
    create = "kubectl -n llm create -f shared-npu.suggested.yaml"
    values = {**VALUES, **REMEDY_CONDITIONS, "direct_claim": True, "claim_fix": [create]}
    lines = render_entry(load_catalog()[slug], lang, values, case).remediation
    assert not [line for line in lines if NAMES_THE_RCT.search(line)], lines
    assert create in lines


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("slug", "case"), _remedy_fixes("rct_fix"))
def test_an_rct_pod_gets_the_rct_remedy(slug: str, case: str | None, lang: str) -> None:
    create = "kubectl -n llm create -f npu-rdma.suggested.yaml"
    values = {**VALUES, **REMEDY_CONDITIONS, "direct_claim": False, "rct_fix": [create]}
    lines = render_entry(load_catalog()[slug], lang, values, case).remediation
    assert create in lines
    assert not any("resourceclaim shared-npu" in line or "--claim" in line for line in lines), lines
