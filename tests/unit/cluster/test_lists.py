"""Which lists a live read asks for beside the DRA ones, per scope, and when it read them."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kubectl_rbln.cluster.lists import is_driver_event, list_path, stage_lists
from kubectl_rbln.cluster.source import read_time


def _planned(scope: str | None) -> set[tuple[str, str]]:
    """(kind, where) of every list: `scope` for the scope's own, else the namespace it is read in."""
    return {(spec.kind, spec.namespace or "scope") for spec in stage_lists(scope)}


def test_a_namespace_read_adds_its_owners_quotas_and_the_schedulers_and_drivers_namespaces():
    assert _planned("serving") == {
        *((kind, "scope") for kind in ("ReplicaSet", "Deployment", "StatefulSet", "Job", "CronJob")),
        ("ResourceQuota", "scope"),
        ("LimitRange", "scope"),
        ("Lease", "kube-system"),
        ("Pod", "kube-system"),  # kube-scheduler's Pods, by their label
        *(
            (kind, ns)
            for kind in ("DaemonSet", "Deployment", "Event")
            for ns in ("kube-system", "rbln-system")
        ),
    }
    [pods] = [s for s in stage_lists("serving") if s.kind == "Pod"]
    assert pods.label == "component=kube-scheduler"
    assert list_path(pods, "v1", pods.namespace) == "/api/v1/namespaces/kube-system/pods"


def test_what_the_scope_already_holds_is_not_read_twice():
    everything = _planned(None)  # -A: every namespace's Pods, Deployments and Events are read already
    assert ("Pod", "kube-system") not in everything and not {k for k, ns in everything if k == "Event"}
    assert {
        ("DaemonSet", "kube-system"),
        ("DaemonSet", "rbln-system"),
        ("Lease", "kube-system"),
    } <= everything
    system = _planned("kube-system")
    assert ("Pod", "kube-system") not in system and ("Event", "kube-system") not in system
    assert ("Event", "rbln-system") in system


def _event(kind: object, name: object) -> dict:
    return {"involvedObject": {"kind": kind, "name": name}}


@pytest.mark.parametrize(
    ("event", "kept"),
    [
        (_event("DaemonSet", "rbln-dra-kubelet-plugin"), True),
        (_event("DaemonSet", "dranet"), True),
        (_event("Pod", "dranet-x7k2p"), True),
        (_event("Pod", "rbln-dra-kubelet-plugin-4kq9z"), True),
        (_event("DaemonSet", "kube-proxy"), False),
        (_event("Pod", "coredns-5d78c9869d-abcde"), False),
        (_event("Deployment", "dranet"), False),
        (_event("Pod", 7), False),
        ({"involvedObject": "x"}, False),
        ({}, False),
    ],
)
def test_driver_events_are_those_of_their_daemonsets_and_pods(event, kept):
    assert is_driver_event(event) is kept


def test_the_read_time_is_the_servers_date_else_ours():
    assert read_time("Mon, 14 Sep 2026 06:00:00 GMT") == "2026-09-14T06:00:00Z"
    now = datetime(2026, 9, 14, 8, 30, 5, 123, tzinfo=timezone.utc)
    assert read_time("", now) == "2026-09-14T08:30:05Z"
    assert read_time("not a date", now) == "2026-09-14T08:30:05Z"
    mine = datetime.strptime(read_time(""), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    assert abs((datetime.now(timezone.utc) - mine).total_seconds()) < 60
