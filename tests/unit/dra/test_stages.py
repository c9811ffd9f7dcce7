"""The stage a device reached for a request, and what the search and the counts make of it."""

from __future__ import annotations

from kubectl_rbln.dra.allocator import Features, allocate
from kubectl_rbln.dra.stages import (
    CANDIDATE,
    ERROR,
    NOT_CANDIDATE,
    OUTCOME,
    STAGE_BINDING,
    STAGE_CLASS,
    STAGE_ERROR,
    STAGE_OK,
    STAGE_REQUEST,
    STAGE_TAINT,
)

from .raw import NPU, claim, exactly, node, npu_class, raw_device, slice_


def test_every_stage_has_one_outcome_and_only_ok_is_a_candidate():
    stages = [STAGE_CLASS, STAGE_REQUEST, STAGE_BINDING, STAGE_TAINT, STAGE_OK, STAGE_ERROR]
    assert sorted(stages) == list(range(6))  # the allocator's check order
    assert set(OUTCOME) == set(stages)
    assert [s for s in stages if OUTCOME[s] == CANDIDATE] == [STAGE_OK]
    assert OUTCOME[STAGE_ERROR] == ERROR
    assert len({NOT_CANDIDATE, CANDIDATE, ERROR}) == 3


def test_counts_follow_the_recorded_stages():
    """One device per stage: class mismatch (other driver), request selector mismatch, an untolerated
    taint (gate on), and two fine devices; the counts narrow in the same order."""
    taint = {"key": "rebellions.ai/unhealthy", "effect": "NoSchedule"}
    slices = [
        slice_(
            "npu",
            [
                raw_device("ok0", {"productName": "RBLN-CA25"}),
                raw_device("ok1", {"productName": "RBLN-CA25"}),
                raw_device("old", {"productName": "RBLN-CA22"}),
                raw_device("sick", {"productName": "RBLN-CA25"}, taints=[taint]),
            ],
        ),
        slice_("gpu", [raw_device("gpu0")], driver="gpu.example.com"),
    ]
    sel = f'device.attributes["{NPU}"].productName == "RBLN-CA25"'
    result = allocate(
        node(),
        [claim("c", exactly("npu", 3, sel))],
        slices,
        npu_class(),
        set(),
        Features(version=34, device_taints=True),
    )
    assert not result.fits
    counts = result.candidates[("ml/c", "npu")]
    assert (counts.on_node, counts.class_match, counts.request_match, counts.free, counts.usable) == (
        4,
        4,
        3,
        3,
        2,
    )
    assert result.failure.kind == "tainted"
