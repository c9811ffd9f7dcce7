"""Shared helpers of tests/rules: build a synthetic cluster, run `why` on one Pod, read its words.

Every test in this folder builds a cluster where one cause is present (a ClusterBuilder knob, a
SCENARIOS entry, or a few objects edited in the real API shape), runs the real `why` use case and
asserts what a user would notice: the slug, its catalog severity, the values that name the culprit,
and that the rendered English and Korean words name them too.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.catalog import severity_of
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic import ClusterBuilder, Knobs
from testing.synthetic.scenario_kit import pod_condition
from testing.synthetic.scenarios import SCENARIOS

SEED = 7
ALL_PENDING = {"prefill_running": 0, "decode_running": 0, "prefill_pending": 1, "decode_pending": 1}
LANGS = ("en", "ko")


class Cluster:
    """A synthetic cluster's raw objects, the builder that named them, and the Pod to ask about."""

    def __init__(self, builder: ClusterBuilder, objects: list[dict[str, Any]], target: tuple[str, str]):
        self.builder = builder
        self.objects = objects
        self.namespace, self.pod = target

    @property
    def npu_nodes(self) -> list[str]:
        return list(self.builder.npu_node_names)

    def snapshot(self) -> Snapshot:
        return build_snapshot(copy.deepcopy(self.objects))

    def findings(self, **request: Any) -> list[Finding]:
        report = why(self.snapshot(), WhyRequest((f"{self.namespace}/{self.pod}",), **request))
        return report.findings

    def slugs(self, **request: Any) -> list[str]:
        return [f.slug for f in self.findings(**request)]

    def raw(self, kind: str, name: str) -> dict[str, Any]:
        return next(o for o in self.objects if o["kind"] == kind and o["metadata"]["name"] == name)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] == kind]

    def drop(self, kind: str) -> None:
        self.objects = [o for o in self.objects if o["kind"] != kind]


def cluster(**knobs: Any) -> Cluster:
    builder = ClusterBuilder(SEED, "v1", Knobs(**knobs))
    return Cluster(builder, builder.build(), builder.target_pod())


def scenario(name: str) -> Cluster:
    s = SCENARIOS[name]
    return Cluster(ClusterBuilder(7, "v1", s.knobs), s.build("v1"), s.pending_pod)


def only(findings: Iterable[Finding], slug: str) -> Finding:
    """The one finding of `slug` (fails if there are none or several)."""
    found = [f for f in findings if f.slug == slug]
    assert len(found) == 1, f"expected one {slug}, got {[(f.slug, f.case) for f in findings]}"
    return found[0]


def texts(finding: Finding, lang: str) -> str:
    words = finding.words(lang)
    return "\n".join([words.title, words.summary, *words.remediation])


def assert_named(finding: Finding, *names: str) -> None:
    """Both languages' words name every culprit, and the severity is the catalog's."""
    for lang in LANGS:
        words = finding.words(lang)
        assert words.severity == severity_of(finding.slug, finding.case)
        body = texts(finding, lang)
        for name in names:
            assert name in body, f"{finding.slug} ({lang}) does not name {name!r}:\n{body}"
    assert finding.words("en").title != finding.words("ko").title


def event(namespace: str, kind: str, name: str, reason: str, message: str, stamp: str, **more: Any) -> dict:
    """A core/v1 Event in the shape `kubectl get events -o json` prints."""
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{name}.{abs(hash((reason, stamp))) % 10**12:x}", "namespace": namespace},
        "involvedObject": {"apiVersion": "v1", "kind": kind, "name": name, "namespace": namespace},
        "reason": reason,
        "message": message,
        "type": more.pop("type", "Warning"),
        "count": more.pop("count", 1),
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
        **more,
    }


def found_before_suppression(c: Cluster, **request: Any) -> list[Finding]:
    """Everything the rules raised for the Pod, before the engine hid what a root cause explains."""
    report = why(c.snapshot(), WhyRequest((f"{c.namespace}/{c.pod}",), **request))
    return list(report.diagnoses[0].context.found)


def set_pod_scheduled(c: Cluster, reason: str, message: str) -> None:
    """Rewrite the target Pod's PodScheduled condition (what `kubectl get pod -o json` shows)."""
    pod = c.raw("Pod", c.pod)
    conditions = [x for x in pod["status"].get("conditions", []) if x.get("type") != "PodScheduled"]
    conditions.append(pod_condition("PodScheduled", "False", "2026-09-14T05:00:09Z", reason, message))
    pod["status"]["conditions"] = conditions
    # the scheduler's events for this Pod said the same; keep only the condition
    c.objects = [
        o
        for o in c.objects
        if not (
            o["kind"] == "Event"
            and o["involvedObject"]["name"] == c.pod
            and o["reason"] == "FailedScheduling"
        )
    ]
