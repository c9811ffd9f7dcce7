"""`why` against a live API (the replay server) gives the same answer as `why -f` on the same objects."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from kubectl_rbln.cli.options import Options
from kubectl_rbln.cli.why import run_why
from kubectl_rbln.cluster.source import load_snapshot
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.dra.normalize_workloads import KIND_GROUPS
from kubectl_rbln.replay.faults import Faults
from testing.synthetic.builder import write_bundle
from testing.synthetic.scenarios import SCENARIOS
from tests.conftest import EXAMPLES


def _why(opts: Options, pod: str) -> dict:
    text, code = run_why(opts, [pod], with_rct=None, k8s_version=None, feature_gates=None)
    report = json.loads(text)
    report["exit"] = code
    return report


def _comparable(report: dict) -> list:
    return [(d["verdict"], d["findings"], d["nodes"]) for d in report["pods"]]


def _options(scenario, objects, replay_server, kubeconfig_for, tmp_path) -> tuple[Options, Options]:
    """The options of a live read of a replay server of `objects`, and of `-f` on a bundle of them."""
    namespace, _ = scenario.pending_pod
    bundle = tmp_path / "bundle.json"
    write_bundle(bundle, objects)
    offline = Options(filenames=[str(bundle)], namespace=namespace, output="json")
    server = replay_server(objects)
    live = Options(
        kubeconfig=str(kubeconfig_for(server)), namespace=namespace, output="json", request_timeout=10
    )
    return live, offline


def _live_and_file(scenario, objects, replay_server, kubeconfig_for, tmp_path) -> tuple[dict, dict]:
    """`why -o json` of the scenario's Pending Pod, read live from a replay server of `objects` and
    from a bundle file of them."""
    live, offline = _options(scenario, objects, replay_server, kubeconfig_for, tmp_path)
    pod = scenario.pending_pod[1]
    return _why(live, pod), _why(offline, pod)


STAGE_KINDS = frozenset(KIND_GROUPS)


def _read_live(namespace: str, kind: str, where: str) -> bool:
    """Whether a live read of `namespace` reads an object of `kind` in namespace `where` (a bundle file
    holds every namespace's): its own namespace's, kube-system's Leases, the drivers' DaemonSets and
    Deployments in their namespaces."""
    if where == namespace:
        return True
    if kind == "Lease":
        return where == "kube-system"
    return kind in ("DaemonSet", "Deployment") and where in ("kube-system", "rbln-system")


def _stage_objects(snapshot: Snapshot, namespace: str) -> dict[str, list]:
    """What a Pod's life stages are read from, of what a live read of `namespace` reads: the Pods' owners
    and the drivers' workloads, the schedulers' Leases, quotas, limit ranges (each list in one order)
    and the read time."""

    def read(items: list, kind: str | None = None) -> list:
        held = [o for o in items if _read_live(namespace, kind or o.kind, o.namespace)]
        return sorted(held, key=lambda o: (kind or o.kind, o.namespace, o.name))

    return {
        "workloads": read(snapshot.workloads),
        "leases": read(snapshot.leases, "Lease"),
        "quotas": read(snapshot.quotas, "ResourceQuota"),
        "limit_ranges": read(snapshot.limit_ranges, "LimitRange"),
        "read_at": [snapshot.read_at],
    }


def _snapshots(live: Options, offline: Options) -> tuple[Snapshot, Snapshot]:
    return load_snapshot(live.source, warn=None)[0], load_snapshot(offline.source, warn=None)[0]


CASES = [(s, "v1") for s in SCENARIOS.values()] + [
    (s, shape) for s in SCENARIOS.values() if s.shape_matters for shape in ("v1beta2", "v1beta1")
]


@pytest.mark.parametrize(("scenario", "shape"), CASES, ids=lambda v: getattr(v, "name", v))
def test_live_and_file_agree(scenario, shape, replay_server, kubeconfig_for, tmp_path):
    """The same answer, and the same objects a Pod's life stages are read from: its owners (the builder
    writes each role's Deployment and ReplicaSet), kube-scheduler's Lease and the read time (served
    as the replay server's Date, the bundle's ClusterInfo readAt)."""
    live_opts, offline_opts = _options(
        scenario, scenario.build(shape), replay_server, kubeconfig_for, tmp_path
    )
    pod = scenario.pending_pod[1]
    live, offline = _why(live_opts, pod), _why(offline_opts, pod)
    assert _comparable(live) == _comparable(offline)
    assert live["exit"] == offline["exit"]
    slugs = {f["slug"] for d in live["pods"] for f in d["findings"]}
    assert scenario.must <= slugs
    live_snapshot, offline_snapshot = _snapshots(live_opts, offline_opts)
    namespace = scenario.pending_pod[0]
    stages = _stage_objects(offline_snapshot, namespace)
    assert _stage_objects(live_snapshot, namespace) == stages
    assert not [p for p in live_snapshot.problems if p.kind in STAGE_KINDS]  # served, none refused
    if namespace == scenario.knobs.namespace:  # the builder's serving Pods: their ReplicaSets and Deployments
        assert {w.kind for w in stages["workloads"]} >= {"Deployment", "ReplicaSet"}
    assert [lease.name for lease in stages["leases"]] == ["kube-scheduler"] and stages["read_at"][0]


def _plugin_env(kubeconfig: Path, home: Path) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "HOME": str(home),
        "KUBECONFIG": str(kubeconfig),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
    }


def test_kubectl_plugin_why_on_example(replay_server, kubeconfig_for, tmp_path):
    """The README's story through kubectl's plugin lookup: verdict first, the fix, exit 1."""
    import subprocess

    from kubectl_rbln.cluster.files import load_objects

    server = replay_server(load_objects([str(EXAMPLES / "pending-decode.json")]))
    kubectl = str(Path(sys.executable).parent / "kubectl")
    env = _plugin_env(kubeconfig_for(server), tmp_path)
    result = subprocess.run(
        [kubectl, "rbln", "why", "-n", "serving"], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    # the verdict comes first; it wraps at 100 display columns, continuation lines indented
    rest = lines[1 : lines.index("")] if "" in lines else lines[1:]
    verdict = " ".join([lines[0]] + [line.strip() for line in rest])
    assert verdict.startswith("Pod serving/") and "resource.kubernetes.io/numaNode" in verdict
    assert "attribute-not-advertised" in result.stdout
    assert "    fix:\n" in result.stdout and "dra.net/numaNode" in result.stdout
    assert "npu-node-01  no" in result.stdout


def test_healthy_running_pod_exits_zero(rbln):
    healthy = EXAMPLES / "healthy.json"
    from kubectl_rbln.cluster.files import load_objects

    running = next(
        o["metadata"]["name"]
        for o in load_objects([str(healthy)])
        if o["kind"] == "Pod" and "decode" in o["metadata"]["name"]
    )
    result = rbln("why", "-f", str(healthy), "-n", "serving", running)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0].endswith("nothing to fix")


def test_odd_container_statuses_read_live_as_from_a_file(replay_server, kubeconfig_for, tmp_path):
    """A replayed bundle holds what its author wrote: container statuses with a text restart count,
    a text entry or a list where `state` belongs used to end a live read in `internal error:
    TypeError` (the previous-log lookup compared the text with 0). They read as the normalizer reads
    them, so live and `-f` give one answer."""
    scenario = SCENARIOS["memlock-crash"]
    objects = scenario.build("v1")
    for pod in (o for o in objects if o["kind"] == "Pod"):
        pod.setdefault("status", {})["containerStatuses"] = [
            {"name": "main", "restartCount": "3", "state": {"waiting": {"reason": "Error"}}},
            "not an object",
            {"name": "side", "restartCount": True, "state": ["running"]},
        ]
    live, offline = _live_and_file(scenario, objects, replay_server, kubeconfig_for, tmp_path)
    assert _comparable(live) == _comparable(offline)
    assert live["exit"] == offline["exit"]


def _meta(name: str, namespace: str, **more) -> dict:
    return {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}", **more}


def _event(name: str, namespace: str, kind: str, involved: str, reason: str, message: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": _meta(name, namespace),
        "involvedObject": {"apiVersion": "apps/v1", "kind": kind, "name": involved, "namespace": namespace},
        "reason": reason,
        "message": message,
        "type": "Warning",
        "count": 4,
        "lastTimestamp": "2026-09-14T05:59:00Z",
        "source": {"component": f"{kind.lower()}-controller"},
    }


def _stage_extras(objects: list[dict]) -> list[dict]:
    """What a dump of a namespace holds beside its Pods: a StatefulSet, a CronJob and its Job, a quota
    and a limit range; a second scheduler's Lease and kube-scheduler's Pod in kube-system; the events
    of a ReplicaSet in the namespace and of a driver's DaemonSet in the driver's namespace."""
    replicaset = next(o for o in objects if o["kind"] == "ReplicaSet")["metadata"]["name"]
    claims = [{"name": "npu", "resourceClaimTemplateName": "npu-rdma"}]
    template = {"metadata": {"labels": {"app": "x"}}, "spec": {"resourceClaims": claims, "containers": []}}
    return [
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": _meta("router", "serving"),
            "spec": {"replicas": 2, "template": template},
            "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1},
        },
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": _meta("warmup", "serving"),
            "spec": {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": template}}},
            "status": {"active": [{"kind": "Job", "name": "warmup-29301600", "namespace": "serving"}]},
        },
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": _meta(
                "warmup-29301600",
                "serving",
                ownerReferences=[
                    {"apiVersion": "batch/v1", "kind": "CronJob", "name": "warmup", "controller": True}
                ],
            ),
            "spec": {"parallelism": 1, "completions": 1, "template": template},
            "status": {"active": 1, "ready": 0},
        },
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": _meta("npu-quota", "serving"),
            "spec": {"hard": {"requests.cpu": "64", "count/resourceclaims.resource.k8s.io": "4"}},
            "status": {
                "hard": {"requests.cpu": "64", "count/resourceclaims.resource.k8s.io": "4"},
                "used": {"requests.cpu": "48", "count/resourceclaims.resource.k8s.io": "4"},
            },
        },
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": _meta("defaults", "serving"),
            "spec": {"limits": [{"type": "Container", "default": {"memory": "1Gi"}}]},
        },
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": _meta("npu-scheduler", "kube-system"),
            "spec": {"holderIdentity": "npu-scheduler-7d9f_1", "leaseDurationSeconds": 15},
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": _meta(
                "kube-scheduler-cp-01",
                "kube-system",
                labels={"component": "kube-scheduler", "tier": "control-plane"},
            ),
            "spec": {"nodeName": "cp-01", "containers": [{"name": "kube-scheduler"}]},
            "status": {"phase": "Running"},
        },
        _event(
            f"{replicaset}.quota",
            "serving",
            "ReplicaSet",
            replicaset,
            "FailedCreate",
            f'Error creating: pods "{replicaset}-x" is forbidden: exceeded quota: npu-quota',
        ),
        _event(
            "rbln-dra-kubelet-plugin.create",
            "rbln-system",
            "DaemonSet",
            "rbln-dra-kubelet-plugin",
            "FailedCreate",
            'Error creating: pods "rbln-dra-kubelet-plugin-" is forbidden: violates PodSecurity',
        ),
    ]


def test_owners_quotas_and_schedulers_read_live_as_from_a_file(replay_server, kubeconfig_for, tmp_path):
    """A Pod's owners of every kind, its namespace's quota and limit range, kube-system's scheduler
    Leases and Pods, and the drivers' DaemonSets (the kubelet plugin scenario has them) read live hold
    what `-f` holds; the events of a ReplicaSet and of a driver's DaemonSet reach both."""
    scenario = SCENARIOS["kubelet-plugin-oomkilled"]
    objects = scenario.build("v1")
    objects += _stage_extras(objects)
    live_opts, offline_opts = _options(scenario, objects, replay_server, kubeconfig_for, tmp_path)
    pod = scenario.pending_pod[1]
    assert _comparable(_why(live_opts, pod)) == _comparable(_why(offline_opts, pod))
    live, offline = _snapshots(live_opts, offline_opts)
    stages = _stage_objects(offline, "serving")
    assert _stage_objects(live, "serving") == stages
    kinds = {(w.kind, w.namespace, w.name) for w in stages["workloads"]}
    assert {
        ("StatefulSet", "serving", "router"),
        ("CronJob", "serving", "warmup"),
        ("Job", "serving", "warmup-29301600"),
        ("DaemonSet", "rbln-system", "rbln-dra-kubelet-plugin"),
        ("DaemonSet", "kube-system", "dranet"),
    } <= kinds
    plugin = next(w for w in stages["workloads"] if w.name == "rbln-dra-kubelet-plugin")
    assert (plugin.desired, plugin.ready, plugin.unavailable) == (2, 1, 1)
    job = next(w for w in stages["workloads"] if w.kind == "Job")
    assert (job.owner_kind, job.owner_name, job.claim_refs[0].name) == ("CronJob", "warmup", "npu")
    assert [q.used["requests.cpu"] for q in stages["quotas"]] == ["48"]
    assert [lease.name for lease in stages["leases"]] == ["kube-scheduler", "npu-scheduler"]
    for snapshot in (live, offline):
        failed = {(e.involved_kind, e.involved_name) for e in snapshot.events if e.reason == "FailedCreate"}
        assert {k for k, _ in failed} == {"ReplicaSet", "DaemonSet"}
        assert snapshot.pod("kube-system", "kube-scheduler-cp-01") is not None
        events = [(e.namespace, e.involved_name, e.reason) for e in snapshot.events]
        assert len(events) == len(set(events)), "an event read twice"


def test_forbidden_owner_and_lease_lists_degrade_those_kinds_only(replay_server, kubeconfig_for, tmp_path):
    """A role without deployments and leases: each refused list is a `forbidden` problem of its kind (in
    the scope and in the drivers' namespaces), and `why` answers as with them, saying once per kind
    that the stuck Pod's stages ran without them (source-degraded)."""
    scenario = SCENARIOS["deviceclass-missing"]
    objects = scenario.build("v1")
    namespace, pod = scenario.pending_pod
    bundle = tmp_path / "bundle.json"
    write_bundle(bundle, objects)
    offline = _why(Options(filenames=[str(bundle)], namespace=namespace, output="json"), pod)
    server = replay_server(objects, faults=Faults(forbid={"deployments", "leases"}))
    opts = Options(
        kubeconfig=str(kubeconfig_for(server)), namespace=namespace, output="json", request_timeout=10
    )
    live = _why(opts, pod)
    (found,) = [d["findings"] for d in live["pods"]]
    degraded = [f["evidence"]["kind"] for f in found if f["slug"] == "source-degraded"]
    assert degraded == ["Deployment", "Lease"]
    for report in (live, offline):
        for diagnosis in report["pods"]:
            diagnosis["findings"] = [f for f in diagnosis["findings"] if f["slug"] != "source-degraded"]
    assert _comparable(live) == _comparable(offline) and live["exit"] == offline["exit"]
    snapshot = load_snapshot(opts.source, warn=None)[0]
    refused = sorted((p.kind, p.code) for p in snapshot.problems)
    # deployments of the scope and of the drivers' namespace besides it (kube-system, rbln-system)
    assert refused == [("Deployment", "forbidden")] * 3 + [("Lease", "forbidden")]
    lease = snapshot.problem_for("Lease")
    assert lease is not None and lease.message.startswith("the schedulers' leader election in kube-system: ")
    assert 'cannot list resource "leases" in API group "coordination.k8s.io"' in lease.message
    assert not snapshot.leases and {w.kind for w in snapshot.workloads} == {"ReplicaSet"}
