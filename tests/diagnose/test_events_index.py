"""A Pod's events come from an index built once per snapshot (issue 16): the same events, in the same
order, as a scan of every event, for every Pod of every scenario and for events that tie in time."""

from __future__ import annotations

import random

import pytest

from kubectl_rbln.diagnose.context import pod_context
from kubectl_rbln.diagnose.pod_events import pod_events
from kubectl_rbln.dra.model import Event, Snapshot
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
