"""diagnose/pod_events.py: the events of a Pod and of its claims, and the scheduler's messages."""

from __future__ import annotations

from rules_kit import ALL_PENDING, cluster, event

from kubectl_rbln.diagnose.context import pod_context
from kubectl_rbln.diagnose.pod_events import pod_events, relevant_events, scheduling_messages


def _ctx(c):
    snapshot = c.snapshot()
    return pod_context(snapshot, snapshot.pod(c.namespace, c.pod))


def _claim_name(c):
    return c.raw("Pod", c.pod)["status"]["resourceClaimStatuses"][0]["resourceClaimName"]


def test_events_of_the_pod_and_its_claim_only_oldest_first():
    c = cluster(**ALL_PENDING)
    other = next(name for _, name in c.builder.pending_pods() if name != c.pod)
    c.drop("Event")
    claim = _claim_name(c)
    c.objects += [
        event(c.namespace, "Pod", c.pod, "FailedScheduling", "late", "2026-09-14T05:50:00Z"),
        event(c.namespace, "ResourceClaim", claim, "Allocated", "claim event", "2026-09-14T05:10:00Z"),
        event(c.namespace, "Pod", other, "FailedScheduling", "another pod", "2026-09-14T05:20:00Z"),
        event(
            "elsewhere",
            "Pod",
            c.pod,
            "FailedScheduling",
            "same name, other namespace",
            "2026-09-14T05:30:00Z",
        ),
        event(c.namespace, "ResourceClaim", "unrelated-claim", "X", "other claim", "2026-09-14T05:40:00Z"),
    ]
    messages = [e.message for e in pod_events(_ctx(c))]
    assert messages == ["claim event", "late"]
    rows = relevant_events(_ctx(c))
    assert [r["object"] for r in rows] == [f"ResourceClaim/{claim}", f"Pod/{c.pod}"]


def test_pod_scheduled_condition_comes_before_the_events():
    c = cluster(nics_per_numa=1, **ALL_PENDING)  # the builder writes the condition and one event
    pod = c.raw("Pod", c.pod)
    condition = next(x for x in pod["status"]["conditions"] if x["type"] == "PodScheduled")
    condition["message"] = "0/3 nodes are available: 3 cannot allocate all claims."
    messages = scheduling_messages(_ctx(c))
    assert len(messages) == 2
    assert messages[0].total_nodes == 3 and "3 cannot allocate all claims" in messages[0].text
    assert messages[1].text != messages[0].text  # the builder's event (with the taint reason) is second


def test_no_condition_message_means_only_events():
    c = cluster(nics_per_numa=1, **ALL_PENDING)
    pod = c.raw("Pod", c.pod)
    pod["status"]["conditions"] = [x for x in pod["status"]["conditions"] if x["type"] != "PodScheduled"]
    messages = scheduling_messages(_ctx(c))
    assert len(messages) == 1
    c.drop("Event")
    assert scheduling_messages(_ctx(c)) == []
