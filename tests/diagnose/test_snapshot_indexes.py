"""Per-Pod lookups answered from indexes built once per snapshot (issue 16) give what a scan of every
object gave: a Pod's events (the same, in the same order, ties in time too), and the claim of a Pod
copy that lacks its status entry (the first claim with its owner and pod-claim-name annotation)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from kubectl_rbln.diagnose.context import _claim_by_annotation, pod_context
from kubectl_rbln.diagnose.pod_events import pod_events
from kubectl_rbln.dra.model import Event, ResourceClaim, Snapshot
from kubectl_rbln.dra.normalize import SnapshotBuilder
from testing.synthetic.scenarios import SCENARIOS


def _scanned(snapshot: Snapshot, pod, claim_names: set[str]) -> list[Event]:  # type: ignore[no-untyped-def]
    """How a Pod's events were found before the index: every event of the snapshot, once per Pod."""
    events = [
        e
        for e in snapshot.events
        if (e.involved_namespace or e.namespace) == pod.namespace
        and (
            (e.involved_kind == "Pod" and e.involved_name == pod.name)
            or (e.involved_kind == "ResourceClaim" and e.involved_name in claim_names)
        )
    ]
    return sorted(events, key=lambda e: e.last_timestamp)


def _assert_same(snapshot: Snapshot) -> int:
    compared = 0
    for pod in snapshot.pods:
        ctx = pod_context(snapshot, pod)
        names = {c.claim_name for c in ctx.claims if c.claim_name}
        found = pod_events(ctx)
        assert found == _scanned(snapshot, pod, names), pod.key
        assert all(a is b for a, b in zip(found, _scanned(snapshot, pod, names), strict=True))
        compared += len(found)
    return compared


@pytest.mark.parametrize("api_version", ["v1", "v1beta1"])
def test_every_scenarios_pods_get_the_events_a_scan_finds(api_version: str) -> None:
    compared = 0
    for scenario in SCENARIOS.values():
        builder = SnapshotBuilder("x")
        for obj in scenario.build(api_version):
            builder.add(obj)
        compared += _assert_same(builder.finish())
    assert compared  # the scenarios do record events


def test_events_that_tie_in_time_keep_the_snapshots_order() -> None:
    snapshot = SnapshotBuilder("x").finish()
    for pod in ("p", "q"):
        builder = SnapshotBuilder("x")
        builder.add(_pod(pod))
        snapshot.pods += builder.finish().pods
    rng = random.Random(16)
    for index in range(200):
        kind, name = rng.choice([("Pod", "p"), ("Pod", "q"), ("ResourceClaim", "p-npu"), ("Node", "p")])
        namespace = rng.choice(["ns", "other"])
        stamp = f"2026-01-01T00:00:0{rng.randrange(3)}Z"
        involved_namespace = rng.choice([namespace, ""])
        snapshot.events.append(
            Event(namespace, kind, name, involved_namespace, f"R{index}", "m", last_timestamp=stamp)
        )
    assert _assert_same(snapshot) > 50


def _pod(name: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ns", "uid": name},
        "spec": {"containers": [{"name": "c"}], "resourceClaims": [{"name": "npu"}]},
        "status": {
            "phase": "Pending",
            "resourceClaimStatuses": [{"name": "npu", "resourceClaimName": f"{name}-npu"}],
        },
    }


def _claim_scanned(snapshot: Snapshot, namespace: str, pod: str, pod_claim: str) -> ResourceClaim | None:
    """How the claim of a Pod copy without its status entry was found before the index."""
    for claim in snapshot.claims:
        if claim.namespace == namespace and claim.owner_pod == pod and claim.pod_claim_name == pod_claim:
            return claim
    return None


def test_a_pod_copy_without_status_finds_the_claim_a_scan_finds() -> None:
    found = 0
    for scenario in SCENARIOS.values():
        builder = SnapshotBuilder("x")
        for obj in scenario.build("v1"):
            builder.add(obj)
        snapshot = builder.finish()
        # a second claim of one owner and annotation, later in the list: the first one is meant
        snapshot.claims += [replace(c, name=c.name + "-copy") for c in snapshot.claims if c.owner_pod]
        for pod in snapshot.pods:
            stale = replace(pod, claim_statuses={})
            for ref in pod.resource_claims:
                claim = _claim_by_annotation(snapshot, stale, ref.name)
                assert claim is _claim_scanned(snapshot, pod.namespace, pod.name, ref.name), pod.key
                found += claim is not None
    assert found  # the scenarios do have generated claims
