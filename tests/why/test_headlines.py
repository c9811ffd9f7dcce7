"""Issue 25: every headline agrees with the evidence and with every other command, on every scenario.

A Running Pod whose container crashes never reads "is Running" alone; no headline counts zero notes;
`--with-rct` says whether the RCT fits and where; the drawing of the closest node counts the Pods
that fit as `topo` counts them; a Pod's block never prints one finding twice; EVENTS say when.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from functools import cache
from typing import Any

import pytest

from kubectl_rbln.app.topo import TopoRequest, topo
from kubectl_rbln.app.why import WhyReport, WhyRequest, why
from kubectl_rbln.dra.model import Pod, Snapshot
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.dra.normalize_claims import normalize_template
from kubectl_rbln.render.event_ages import last_seen
from kubectl_rbln.render.topo_text import summary_lines
from kubectl_rbln.render.why_table import render_why
from kubectl_rbln.text import human_duration
from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.recipes import recipe_spec
from testing.synthetic.scenarios import SCENARIOS

LANGS = ("en", "ko")
NAMES = sorted(SCENARIOS)
# what says "a count of notes" in either language, whatever the count
COUNTED_NOTES = re.compile(r"\d+ note\(s\)|note\(s\)|참고 사항 \d+개")


@cache
def _snapshot(name: str) -> Snapshot:
    return build_snapshot(SCENARIOS[name].build("v1"))


@cache
def _report(name: str) -> WhyReport:
    """Every Pod `why` looks at in the scenario, and the scenario's own Pod."""
    snapshot = _snapshot(name)
    pods = {f"{p.namespace}/{p.name}" for p in snapshot.pods if _looked_at(p)}
    pods.add("/".join(SCENARIOS[name].pending_pod))
    return why(snapshot, WhyRequest(tuple(sorted(pods))))


def _looked_at(pod: Pod) -> bool:
    return pod.phase == "Pending" or any(s.restart_count or s.reason for s in pod.container_states)


def _crashing(pod: Pod) -> Any:
    """A container `kubectl get pod` shows crashing: CrashLoopBackOff, or restarted and not ready."""
    return next(
        (
            s
            for s in pod.container_states
            if s.reason == "CrashLoopBackOff" or (s.restart_count and not s.ready)
        ),
        None,
    )


def _block(report: WhyReport, snapshot: Snapshot, pod: str, lang: str) -> str:
    """One Pod's block of the `why` text, as the terminal shows it."""
    document = report.to_document(lang)
    document["pods"] = [p for p in document["pods"] if p["pod"] == pod]
    views = {k: v for k, v in report.closest_views(snapshot).items() if k == pod}
    return render_why(document, views, color=False, wide=False, lang=lang)


CRASHING = {"memlock-crash", "node-running-oom-killed"}  # at least these hold a crash-looping container


@pytest.mark.parametrize("name", NAMES)
def test_a_running_pod_whose_container_crashes_never_reads_running_alone(name: str) -> None:
    checked = 0
    for diagnosis in _report(name).diagnoses:
        crashing = _crashing(diagnosis.pod)
        if diagnosis.pod.phase != "Running" or crashing is None:
            continue
        checked += 1
        verdict = diagnosis.verdict("en")
        assert f"is Running, but container {crashing.name} is crashing" in verdict, verdict
        if crashing.restart_count:
            assert f"{crashing.restart_count} restart" in verdict, verdict
        if crashing.reason:
            assert crashing.reason in verdict, verdict
        korean = diagnosis.verdict("ko")
        assert f"컨테이너 {crashing.name}" in korean and "재시작" in korean, korean
    assert checked or name not in CRASHING


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("lang", LANGS)
def test_no_headline_counts_notes(name: str, lang: str) -> None:
    for diagnosis in _report(name).diagnoses:
        verdict = diagnosis.verdict(lang)
        assert not COUNTED_NOTES.search(verdict), verdict


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("lang", LANGS)
def test_no_finding_is_printed_twice_in_a_pods_block(name: str, lang: str) -> None:
    report, snapshot = _report(name), _snapshot(name)
    for diagnosis in report.diagnoses:
        words = [(f.slug, f.words(lang).title) for f in diagnosis.findings]
        summaries = [(f.slug, f.words(lang).summary) for f in diagnosis.findings]
        assert len(set(words)) == len(words), words
        assert len(set(summaries)) == len(summaries), [s for s, _ in summaries]
        block = _block(report, snapshot, diagnosis.pod.key, lang)
        heads = [line for line in block.splitlines() if re.match(r"^[✗!i] (error|warning|info) ", line)]
        assert len(set(heads)) == len(heads), heads


def test_device_plugin_pods_on_nodes_that_also_publish_dra_slices_get_one_finding() -> None:
    """The Pod-mode warning and the both-exposed error said the same words and the same fix, twice."""
    knobs = Knobs(
        pod_mode="device-plugin", decode_running=0, prefill_running=0, decode_pending=1, prefill_pending=0
    )
    snapshot = build_snapshot(ClusterBuilder(7, "v1", knobs).build())
    report = why(snapshot, WhyRequest())
    (diagnosis,) = report.diagnoses
    found = [f for f in diagnosis.findings if f.slug == "device-plugin-mode"]
    assert [f.case for f in found] == ["both-exposed"]
    assert found[0].evidence["podRequests"], "what the Pod asks stays in the one finding's evidence"
    text = _block(report, snapshot, diagnosis.pod.key, "en")
    assert text.count("docs: docs/findings/device-plugin-mode.md") == 1, text
    # a Pod without claims is not told "its claims cannot be allocated"
    assert "its claims" not in diagnosis.verdict("en") and "no node can take it" in diagnosis.verdict("en")


@pytest.mark.parametrize("name", NAMES)
def test_the_closest_node_counts_the_pods_that_fit_as_topo_does(name: str) -> None:
    report, snapshot = _report(name), _snapshot(name)
    for pod, view in report.closest_views(snapshot).items():
        if view.rct.direct or view.topology.summary.pods is None:
            continue  # a claim the Pod names is allocated once: whether it fits, not how many
        namespace = pod.split("/", 1)[0]
        other = topo(
            snapshot, TopoRequest(namespace=namespace, rct=view.rct.name, nodes=(view.topology.node,))
        )
        (counted,) = other.topology.nodes
        assert view.topology.summary.pods == counted.summary.pods, (name, pod)
        assert summary_lines(view.topology, view.rct)[0] == summary_lines(counted, other.topology.rct)[0]


def test_a_node_the_pod_may_not_use_counts_every_pod_that_fits() -> None:
    """taint-not-device-related: the devices fit on the tainted node; `why` drew "1 more Pod", topo 2."""
    name = "taint-not-device-related"
    view = _report(name).closest_views(_snapshot(name))["/".join(SCENARIOS[name].pending_pod)]
    assert view.topology.summary.pods == 2
    assert summary_lines(view.topology, view.rct)[0].endswith("2 more Pods of serving/npu-rdma fit")


def _template(recipe: str) -> Any:
    return normalize_template(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "npu-rdma", "namespace": "serving"},
            "spec": {"spec": {"devices": recipe_spec(recipe)}},
        }
    )


@pytest.mark.parametrize("lang", LANGS)
def test_with_rct_that_fits_says_so_and_where(lang: str) -> None:
    scenario = SCENARIOS["nic-no-numanode"]
    snapshot = _snapshot(scenario.name)
    report = why(
        snapshot, WhyRequest(("/".join(scenario.pending_pod),), with_rct=_template("numa-unaligned"))
    )
    (diagnosis,) = report.diagnoses
    fits = [row["name"] for row in diagnosis.nodes if row["fits"]]
    assert fits, "the unaligned recipe fits on this cluster"
    verdict = diagnosis.verdict(lang)
    assert all(node in verdict for node in fits), verdict
    assert "npu-rdma" in verdict and "--with-rct" in verdict
    if lang == "en":
        assert "can be allocated on" in verdict and "refused" not in verdict, verdict
    assert not COUNTED_NOTES.search(verdict)
    assert not [f for f in diagnosis.findings if f.slug == "claim-not-allocated"]


@pytest.mark.parametrize("lang", LANGS)
def test_with_rct_that_does_not_fit_says_that_rct_cannot_be_allocated(lang: str) -> None:
    scenario = SCENARIOS["nic-no-numanode"]
    snapshot = _snapshot(scenario.name)
    report = why(snapshot, WhyRequest(("/".join(scenario.pending_pod),), with_rct=_template("numa-aligned")))
    (diagnosis,) = report.diagnoses
    assert not any(row["fits"] for row in diagnosis.nodes)
    verdict = diagnosis.verdict(lang)
    assert "npu-rdma" in verdict and "--with-rct" in verdict, verdict
    if lang == "en":
        assert "its claims cannot be allocated: No dra.net device publishes" in verdict, verdict


# ---------------------------------------------------------------------------------------------- EVENTS

# k8s.io/apimachinery pkg/util/duration/duration_test.go TestHumanDuration and its boundaries
HUMAN = [
    (1, "1s"),
    (70, "70s"),
    (190, "3m10s"),
    (70 * 60, "70m"),
    (47 * 3600, "47h"),
    (49 * 3600, "2d1h"),
    ((8 * 24 + 2) * 3600, "8d"),
    (367 * 24 * 3600, "367d"),
    ((365 * 2 * 24 + 25) * 3600, "2y1d"),
    ((365 * 8 * 24 + 2) * 3600, "8y"),
    (-2, "<invalid>"),
    (-1.999, "0s"),
    (0, "0s"),
    (120 - 0.001, "119s"),
    (120, "2m"),
    (10 * 60 - 0.001, "9m59s"),
    (10 * 60 + 1, "10m"),
    (3 * 3600 - 0.001, "179m"),
    (3 * 3600 + 60, "3h1m"),
    (8 * 3600 - 0.001, "7h59m"),
    (8 * 3600 + 59 * 60, "8h"),
    (2 * 24 * 3600 - 0.001, "47h"),
    (8 * 24 * 3600 - 0.001, "7d23h"),
    (2 * 365 * 24 * 3600 - 0.001, "729d"),
    (2 * 365 * 24 * 3600 + 24 * 3600, "2y1d"),
    (8 * 365 * 24 * 3600 - 0.001, "7y364d"),
]


@pytest.mark.parametrize(("seconds", "want"), HUMAN)
def test_ages_read_as_kubectl_writes_them(seconds: float, want: str) -> None:
    assert human_duration(round(seconds * 10**9)) == want


def test_last_seen_is_kubectl_events_interval_counted_from_the_read_time() -> None:
    read = datetime(2026, 9, 14, 6, 0, tzinfo=timezone.utc)

    def stamp(ago: timedelta) -> str:
        return (read - ago).strftime("%Y-%m-%dT%H:%M:%SZ")

    repeated = {
        "count": 82,
        "lastTimestamp": stamp(timedelta(minutes=4)),
        "firstTimestamp": stamp(timedelta(hours=5)),
    }
    assert last_seen(repeated, read) == "4m (x82 over 5h)"
    assert last_seen(repeated, read, "ko") == "4m (5h 동안 82회)"
    once = {
        "count": 1,
        "lastTimestamp": stamp(timedelta(seconds=30)),
        "firstTimestamp": stamp(timedelta(seconds=30)),
    }
    assert last_seen(once, read) == "30s"
    assert last_seen({"count": 1, "lastTimestamp": ""}, read) == "<unknown>"


@pytest.mark.parametrize("lang", LANGS)
def test_events_show_when_they_were_last_seen_before_the_read(lang: str) -> None:
    name = "memlock-crash"
    report, snapshot = _report(name), _snapshot(name)
    document = report.to_document(lang)
    assert document["readAt"] == snapshot.read_at or not snapshot.read_at
    read = datetime.strptime(document["readAt"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    pod = "/".join(SCENARIOS[name].pending_pod)
    (event,) = [
        e for p in document["pods"] if p["pod"] == pod for e in p["events"] if e["reason"] == "BackOff"
    ]
    text = _block(report, snapshot, pod, lang)
    lines = text.splitlines()
    heading = lines.index(next(line for line in lines if document["readAt"] in line))
    row = lines[heading + 2]
    assert row.startswith(f"  {last_seen(event, read, lang)}  ") and "Warning" in row and "BackOff" in row, (
        row
    )
    assert (f"(x{event['count']} over " if lang == "en" else f" 동안 {event['count']}회)") in row
    assert event["object"] in row
    assert lines[heading + 3].startswith("      Back-off restarting"), lines[heading + 3]
