"""The event parser is total: any text, huge or strange, gives a result and never an exception."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_rbln.catalog import fill
from kubectl_rbln.diagnose.events import (
    CATEGORIES,
    classify_event,
    parse_dra_message,
    parse_scheduling_message,
)
from kubectl_rbln.dra.model import Event

pytestmark = pytest.mark.slow  # hypothesis, 200 to 400 examples a test

# Fragments of real texts, so that the fuzzer reaches the interesting branches, not just noise.
FRAGMENTS = [
    "0/", "3 nodes are available: ", "1 cannot allocate all claims", ", ", ". ", "still not schedulable",
    "preemption: ", "running \"DynamicResources\" filter plugin: ",
    "running PreFilter plugin \"DynamicResources\": ",
    "claim ns/c, request r: ", "selector #0: CEL runtime error: no such key: ", "pod \"ns/p\": ",
    "ResourceClaim not created yet", "{", "}", "[", "]", "node(s) had untolerated taint {a: b}", " ...",
    "PodResourceClaim x: ", "resource claim template \"t\": ", "\n", "Insufficient ", "rebellions.ai/ATOM",
    "한국어 메시지", "\u0000", "\U0001f600",
]  # fmt: skip

texts = st.one_of(
    st.text(),
    st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=40).map("".join),
)


@given(texts)
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_parse_scheduling_message_never_raises(text: str) -> None:
    parsed = parse_scheduling_message(text)
    assert parsed.text == text
    assert all(reason.category in CATEGORIES for reason in parsed.reasons)
    assert all(reason.count >= 0 for reason in parsed.reasons)


@given(texts)
@settings(max_examples=400)
def test_parse_dra_message_never_raises(text: str) -> None:
    found = parse_dra_message(text)
    assert found is None or (found.code and found.versions)


@given(st.text(max_size=30), texts)
@settings(max_examples=200)
def test_classify_event_never_raises(reason: str, text: str) -> None:
    event = Event("ns", "Pod", "p", "ns", reason, text)
    assert classify_event(event).kind in {"scheduling", "claim-creation", "kubelet", "backoff", "other"}


@given(
    st.sampled_from(
        ["FailedScheduling", "FailedResourceClaimCreation", "FailedPrepareDynamicResources", "BackOff"]
    ),
    texts,
)
@settings(max_examples=200)
def test_classify_known_reasons_never_raises(reason: str, text: str) -> None:
    event = Event("ns", "Pod", "p", "ns", reason, text)
    assert classify_event(event).event is event


def test_huge_inputs_are_fast() -> None:
    """Pathological inputs (long runs without the expected separators) must not go quadratic."""
    huge = [
        "a" * 1_000_000,
        " " * 1_000_000,
        "claim " * 200_000,
        "0/1 nodes are available: " + "1 x, " * 100_000,
        "{" * 500_000 + "}" * 500_000,
        "claim ns/" + "c" * 500_000 + ", request " + "r" * 500_000,
        'running "DynamicResources" filter plugin: ' + "x" * 1_000_000,
    ]
    start = time.perf_counter()
    for text in huge:
        parse_scheduling_message(text)
        parse_dra_message(text)
    assert time.perf_counter() - start < 10


@given(st.text(), st.dictionaries(st.text(max_size=5), st.text(max_size=5) | st.integers()))
@settings(max_examples=200)
def test_catalog_fill_never_raises(template: str, values: dict) -> None:
    assert isinstance(fill(template, values), str)
