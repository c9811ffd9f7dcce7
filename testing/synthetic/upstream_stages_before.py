"""Scenarios for the stages of a Pod's life before the node (diagnose/lifecycle.py): created,
claims-created, queued, scheduler, allocated, bound. Each is the reference cluster (ClusterBuilder,
in v1) edited the way a public upstream report shows it, then put in the asked API shape.

Every status text, condition and event message below is one Kubernetes (or the named project) writes:
the description of each scenario names the report it comes from, and the comment above its edit names
the source file of each text. Most of them name a cause no rule of `why` knows yet (`recognised=False`,
`must={"cause-not-recognised"}`): the stage decider has to find the stage and quote its evidence.

Two facts of the real system shape these clusters, and the stage decider has to live with them:

- "created": `why` is asked about a Pod, and a Pod that exists has been created. The owner chain
  refusing to create Pods is the stuck stage only for a Pod that has finished (Failed, or being
  deleted) and that its controller must replace: `kubectl get pods` then shows only the finished Pod,
  and that is the Pod the user asks about. Here a decode replica was terminated by graceful node
  shutdown (phase Failed, reason Terminated; such Pods stay listed until the Pod GC threshold,
  kubernetes/kubernetes#98012), and its ReplicaSet cannot create the replacement: a Pod mutating
  webhook built on an older k8s.io/api drops `resourceClaimTemplateName` (kubernetes/kubernetes#131044),
  so every create is invalid (FailedCreate, kubernetes/kubernetes#131877). The finished Pod's generated
  claim is gone (the claim controller deletes a done Pod's claims), but its status still names it.
- "bound": after a failed Bind the scheduler's Unreserve removes the Pod from the claim's
  `status.reservedFor` and keeps the allocation (pkg/scheduler/framework/plugins/dynamicresources/
  dynamicresources.go, Unreserve); the next attempt reserves it again in PreBind and fails again in
  Bind. A snapshot between attempts therefore shows the claim allocated and not reserved, with the
  scheduler's SchedulerError naming the Bind plugin: the claim is generated for this Pod (its owner),
  so its allocation is this Pod's, and "allocated" is passed.

The two older cases of the issue are here too: a Deployment whose replicas share one named claim
(stage allocated, shared-claim-node-unusable), and `allocationMode: All` on the only eligible node
(stage allocated, devices-exhausted). The lead wires SCENARIOS into scenarios.py once the stage engine
is there; tests/why/test_stage_scenarios_objects.py checks only the objects.
"""

from __future__ import annotations

import copy
import zlib
from typing import Any

from kubectl_rbln.domain import NIC_CLASS, NPU_CLASS, NPU_DRIVER
from testing.synthetic.builder import ClusterBuilder
from testing.synthetic.fit_error import event_note, fit_error_message
from testing.synthetic.knobs import Knobs
from testing.synthetic.scenario_kit import DEVICE_BLAME, SEED, Edit, Scenario, edited_scenario, pod_condition

Objects = list[dict[str, Any]]

STAMP = "2026-09-14T05:58:40Z"  # the last time an event below was recorded (the builder's now is 06:00)
FIRST = "2026-09-14T05:10:02Z"
CONTROL_PLANE_TAINT = "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NOT_RECOGNISED = {"cause-not-recognised"}
# a stage before the node must not be blamed on a stage on the node
NODE_STAGES = frozenset({"kubelet-prepare-failed", "nri-sandbox-failed", "memlock-limit"})


# ------------------------------------------------------------------ helpers


def _pod(objects: Objects, name: str) -> dict[str, Any]:
    return next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] == name)


def _decode_pods(objects: Objects) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"].startswith("coder-decode")]


def _claim_of(objects: Objects, pod: dict[str, Any]) -> dict[str, Any]:
    name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    return next(o for o in objects if o["kind"] == "ResourceClaim" and o["metadata"]["name"] == name)


def _event(
    involved: dict[str, Any],
    reason: str,
    message: str,
    count: int,
    component: str,
    *,
    host: str = "",
    action: str | None = None,
    kind: str = "Pod",
    api_version: str = "v1",
) -> dict[str, Any]:
    """A core/v1 Event about `involved` (a Pod, a ReplicaSet), as `kubectl get events -o json` prints it."""
    meta = involved["metadata"]
    source: dict[str, str] = {"component": component}
    if host:
        source["host"] = host
    event: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            # a stable suffix (str hash() is salted per process): bundles stay reproducible
            "name": f"{meta['name']}.{zlib.crc32((reason + message).encode()):x}",
            "namespace": meta["namespace"],
        },
        "involvedObject": {
            "apiVersion": api_version,
            "kind": kind,
            "name": meta["name"],
            "namespace": meta["namespace"],
            "uid": meta.get("uid", ""),
        },
        "reason": reason,
        "message": message,
        "type": "Warning",
        "count": count,
        "firstTimestamp": FIRST,
        "lastTimestamp": STAMP,
        "source": source,
        "reportingComponent": component,
    }
    if action:
        event["action"] = action
    return event


def _unschedulable(objects: Objects, pod: dict[str, Any], reason: str, message: str, count: int) -> None:
    """What the scheduler's handleSchedulingFailure writes (pkg/scheduler/schedule_one.go): PodScheduled
    False with the full text, and a FailedScheduling event with the text cut to the event note limit."""
    pod["status"]["conditions"] = [
        {
            "lastProbeTime": None,
            "lastTransitionTime": FIRST,
            "message": message,
            "reason": reason,
            "status": "False",
            "type": "PodScheduled",
        }
    ]
    objects.append(
        _event(pod, "FailedScheduling", event_note(message), count, "default-scheduler", action="Scheduling")
    )


def _node_results(objects: Objects, node: str, numa: int) -> list[dict[str, Any]]:
    """The four NPUs and the two RDMA NICs of one NUMA node, as the reference RCT gets them allocated."""
    results: list[dict[str, Any]] = []
    for obj in objects:
        if obj["kind"] != "ResourceSlice" or obj["spec"]["nodeName"] != node:
            continue
        driver = obj["spec"]["driver"]
        request, want = ("npu", 4) if driver == NPU_DRIVER else ("nic", 2)
        picked = [
            d["name"]
            for d in obj["spec"]["devices"]
            if d["attributes"].get("resource.kubernetes.io/numaNode", {}).get("int") == numa
            and (driver == NPU_DRIVER or d["attributes"].get("dra.net/rdma", {}).get("bool"))
        ][:want]
        results += [{"device": d, "driver": driver, "pool": node, "request": request} for d in picked]
    return results


def _on_node(node: str) -> dict[str, Any]:
    return {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]
    }


def _scenario(
    name: str,
    description: str,
    edit: Edit,
    *,
    stage: str,
    must: set[str],
    must_not: set[str] | frozenset[str],
    knobs: Knobs,
    pending_pod: tuple[str, str] | None = None,
) -> Scenario:
    """An edited reference cluster at `stage`; the stuck Pod is the builder's target unless named."""
    return edited_scenario(
        name,
        description,
        edit,
        must=must,
        must_not=must_not,
        pending_pod=pending_pod or ClusterBuilder(SEED, "v1", knobs).target_pod(),
        knobs=knobs,
        stage=stage,
        recognised=must != NOT_RECOGNISED,
    )


# ------------------------------------------------------------------ created: the replacement is refused

# One decode replica, alone on npu-node-01; no other Pod of the release runs.
CREATED_KNOBS = Knobs(prefill_running=0, decode_running=1, prefill_pending=0, decode_pending=0)
NODE_SHUTDOWN = "Pod was terminated in response to imminent node shutdown."  # nodeshutdown_manager.go
DEPLOYMENT_UID = "7b1e0c44-0000-4000-8000-00000000c001"


def _replacement_refused(objects: Objects, builder: ClusterBuilder) -> Objects:
    """The only decode Pod was terminated by graceful node shutdown; its replacement cannot be created.

    Texts: pkg/kubelet/nodeshutdown/nodeshutdown_manager*.go (phase Failed, reason "Terminated",
    nodeShutdownMessage, DisruptionTarget TerminationByKubelet); pkg/controller/controller_utils.go
    (FailedCreate "Error creating: %v"); pkg/controller/replicaset/replica_set.go calculateStatus
    (ReplicaFailure, reason FailedCreate, the error as message); pkg/controller/deployment (the
    ReplicaFailure condition copied from the ReplicaSet, "Deployment does not have minimum
    availability.", `ReplicaSet %q has timed out progressing.`). The error is the API server's
    validation of a PodResourceClaim left with neither name (kubernetes/kubernetes#131877), as 1.34
    prints the value (Project-HAMi/k8s-dra-driver#5)."""
    (pod,) = _decode_pods(objects)
    meta, status = pod["metadata"], pod["status"]
    name, namespace = meta["name"], meta["namespace"]
    claim = _claim_of(objects, pod)
    container = status["containerStatuses"][0]
    started = container["state"]["running"]["startedAt"]
    pod["status"] = {
        "conditions": [
            {
                "lastProbeTime": None,
                "lastTransitionTime": "2026-09-14T05:02:11Z",
                "message": NODE_SHUTDOWN,
                "reason": "TerminationByKubelet",
                "status": "True",
                "type": "DisruptionTarget",
            },
            {
                "lastProbeTime": None,
                "lastTransitionTime": "2026-09-14T05:02:41Z",
                "status": "False",
                "type": "PodReadyToStartContainers",
            },
            {
                "lastProbeTime": None,
                "lastTransitionTime": status["startTime"],
                "status": "True",
                "type": "Initialized",
            },
            {
                "lastProbeTime": None,
                "lastTransitionTime": "2026-09-14T05:02:41Z",
                "reason": "PodFailed",
                "status": "False",
                "type": "Ready",
            },
            {
                "lastProbeTime": None,
                "lastTransitionTime": "2026-09-14T05:02:41Z",
                "reason": "PodFailed",
                "status": "False",
                "type": "ContainersReady",
            },
            {
                "lastProbeTime": None,
                "lastTransitionTime": status["startTime"],
                "status": "True",
                "type": "PodScheduled",
            },
        ],
        "containerStatuses": [
            {
                **{k: container[k] for k in ("containerID", "image", "imageID", "name")},
                "lastState": {},
                "ready": False,
                "restartCount": 0,
                "started": False,
                "state": {
                    "terminated": {
                        "containerID": container["containerID"],
                        "exitCode": 143,
                        "finishedAt": "2026-09-14T05:02:40Z",
                        "reason": "Error",
                        "startedAt": started,
                    }
                },
            }
        ],
        "hostIP": status["hostIP"],
        "hostIPs": status["hostIPs"],
        "message": NODE_SHUTDOWN,
        "phase": "Failed",
        "qosClass": status["qosClass"],
        "reason": "Terminated",
        "resourceClaimStatuses": status["resourceClaimStatuses"],  # kept: the status is not rewritten
        "startTime": status["startTime"],
    }
    # the claim controller deleted the done Pod's generated claim; nothing runs, so no probe capture
    objects = [
        o
        for o in objects
        if o is not claim and not (o["kind"] == "ExecCapture" and o["metadata"]["name"] == name)
    ]
    owner = meta["ownerReferences"][0]
    rs_name, rs_uid = owner["name"], owner["uid"]
    labels = dict(meta["labels"])
    error = (
        f'Pod "{rs_name}-w7k2q" is invalid: spec.resourceClaims[0]: Invalid value: '
        '{"Name":"npu-rdma","ResourceClaimName":null,"ResourceClaimTemplateName":null}: '
        "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
    )
    template = {
        "metadata": {"labels": dict(labels)},
        "spec": copy.deepcopy({k: v for k, v in pod["spec"].items() if k != "nodeName"}),
    }
    selector = {k: v for k, v in labels.items() if k != "pod-template-hash"}
    deployment_name = rs_name.rsplit("-", 1)[0]
    replica_set = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "annotations": {
                "deployment.kubernetes.io/desired-replicas": "1",
                "deployment.kubernetes.io/max-replicas": "2",
                "deployment.kubernetes.io/revision": "1",
            },
            "creationTimestamp": "2026-09-13T21:40:00Z",
            "generation": 1,
            "labels": labels,
            "name": rs_name,
            "namespace": namespace,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "Deployment",
                    "name": deployment_name,
                    "uid": DEPLOYMENT_UID,
                }
            ],
            "uid": rs_uid,
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": dict(labels)},
            "template": template,
        },
        "status": {
            "conditions": [
                {
                    "lastTransitionTime": "2026-09-14T05:10:02Z",
                    "message": error,
                    "reason": "FailedCreate",
                    "status": "True",
                    "type": "ReplicaFailure",
                }
            ],
            "observedGeneration": 1,
            "replicas": 0,
        },
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "creationTimestamp": "2026-09-13T21:40:00Z",
            "generation": 1,
            "labels": selector,
            "name": deployment_name,
            "namespace": namespace,
            "uid": DEPLOYMENT_UID,
        },
        "spec": {
            "progressDeadlineSeconds": 600,
            "replicas": 1,
            "selector": {"matchLabels": selector},
            "strategy": {
                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
                "type": "RollingUpdate",
            },
            "template": {"metadata": {"labels": selector}, "spec": template["spec"]},
        },
        "status": {
            "conditions": [
                {
                    "lastTransitionTime": "2026-09-14T05:02:41Z",
                    "lastUpdateTime": "2026-09-14T05:02:41Z",
                    "message": "Deployment does not have minimum availability.",
                    "reason": "MinimumReplicasUnavailable",
                    "status": "False",
                    "type": "Available",
                },
                {
                    "lastTransitionTime": "2026-09-14T05:20:03Z",
                    "lastUpdateTime": "2026-09-14T05:20:03Z",
                    "message": f'ReplicaSet "{rs_name}" has timed out progressing.',
                    "reason": "ProgressDeadlineExceeded",
                    "status": "False",
                    "type": "Progressing",
                },
                {
                    "lastTransitionTime": "2026-09-14T05:10:02Z",
                    "lastUpdateTime": "2026-09-14T05:10:02Z",
                    "message": error,
                    "reason": "FailedCreate",
                    "status": "True",
                    "type": "ReplicaFailure",
                },
            ],
            "observedGeneration": 1,
            "unavailableReplicas": 1,
        },
    }
    failed_create = _event(
        replica_set,
        "FailedCreate",
        f"Error creating: {error}",
        27,
        "replicaset-controller",
        kind="ReplicaSet",
        api_version="apps/v1",
    )
    return [*objects, deployment, replica_set, failed_create]


# ------------------------------------------------------------------ claims-created: exceeded quota

QUOTA_KNOBS = Knobs(claim_created=False)  # a prefill and a decode Pod run, the next decode Pod waits
NPU_QUOTA = f"{NPU_CLASS}.deviceclass.resource.k8s.io/devices"


def _claim_quota_exceeded(objects: Objects, builder: ClusterBuilder) -> Objects:
    """The namespace's ResourceQuota allows 8 NPUs; the two running Pods' claims hold them all.

    Texts: pkg/controller/resourceclaim/controller.go syncPod/handleClaim (event FailedResourceClaimCreation
    "PodResourceClaim %s: %v" around "create ResourceClaim %s: %v", where the name is `claim.Name`, still
    empty because the controller sets only GenerateName); plugin/pkg/admission/resourcequota/controller.go
    ("exceeded quota: %s, requested: %s, used: %s, limited: %s" through admission.NewForbidden, which names
    the object: the API server generated its name before validating admission ran, store.go create);
    pkg/quota/v1/evaluator/core/resource_claims.go (`<class>.deviceclass.resource.k8s.io/devices`, a
    claim counting its exact count)."""
    namespace, name = builder.target_pod()
    pod = _pod(objects, name)
    generated = f"{name}-npu-rdma-t5x9k"
    message = (
        f"PodResourceClaim npu-rdma: create ResourceClaim : resourceclaims.resource.k8s.io "
        f'"{generated}" is forbidden: exceeded quota: npu-quota, requested: {NPU_QUOTA}=4, '
        f"used: {NPU_QUOTA}=8, limited: {NPU_QUOTA}=8"
    )
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {
            "creationTimestamp": "2026-09-10T02:00:00Z",
            "name": "npu-quota",
            "namespace": namespace,
            "uid": "7b1e0c44-0000-4000-8000-00000000c101",
        },
        "spec": {"hard": {NPU_QUOTA: "8"}},
        "status": {"hard": {NPU_QUOTA: "8"}, "used": {NPU_QUOTA: "8"}},
    }
    event = _event(pod, "FailedResourceClaimCreation", message, 19, "resource_claim")
    return [*objects, quota, event]


# ------------------------------------------------------------------ queued: a scheduling gate nobody lifts

QUEUED_KNOBS = Knobs()  # the pending decode Pod would fit: only the gate keeps it out of the queue
KUEUE_GATE = "kueue.x-k8s.io/admission"


def _kueue_gated(objects: Objects, builder: ClusterBuilder) -> Objects:
    """Kueue manages the decode Pods (pod integration) and never admits this one.

    Texts: pkg/registry/core/pod/strategy.go applySchedulingGatedCondition (PodScheduled False,
    SchedulingGated, "Scheduling is blocked due to non-empty scheduling gates"); kueue pkg/dra (the
    field.NotFound "DeviceClass %s is not mapped in DRA configuration for podset %s") and the Workload
    conditions kueue's workload controller test expects for it (QuotaReserved and Requeued False,
    Inadmissible); the gate, labels and Workload name from kueue's pod integration."""
    namespace, name = builder.target_pod()
    pod = _pod(objects, name)
    pod["metadata"]["labels"].update(
        {"kueue.x-k8s.io/managed": "true", "kueue.x-k8s.io/queue-name": "serving"}
    )
    pod["spec"]["schedulingGates"] = [{"name": KUEUE_GATE}]
    pod["status"]["conditions"] = [
        {
            "lastProbeTime": None,
            "lastTransitionTime": pod["metadata"]["creationTimestamp"],
            "message": "Scheduling is blocked due to non-empty scheduling gates",
            "reason": "SchedulingGated",
            "status": "False",
            "type": "PodScheduled",
        }
    ]
    not_mapped = (
        "spec.podSets[0].template.spec.resourceClaims[0].resourceClaimTemplateName: Not found: "
        f'"DeviceClass {NIC_CLASS} is not mapped in DRA configuration for podset main"'
    )
    workload = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {
            "creationTimestamp": pod["metadata"]["creationTimestamp"],
            "finalizers": ["kueue.x-k8s.io/resource-in-use"],
            "labels": {"kueue.x-k8s.io/job-uid": pod["metadata"]["uid"]},
            "name": f"pod-{name}-5c1f2",
            "namespace": namespace,
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "Pod",
                    "name": name,
                    "uid": pod["metadata"]["uid"],
                }
            ],
            "uid": "7b1e0c44-0000-4000-8000-00000000c201",
        },
        "spec": {
            "active": True,
            "podSets": [
                {
                    "count": 1,
                    "name": "main",
                    "template": {
                        "spec": copy.deepcopy(
                            {k: pod["spec"][k] for k in ("containers", "resourceClaims", "restartPolicy")}
                        )
                    },
                }
            ],
            "priority": 0,
            "queueName": "serving",
        },
        "status": {
            "conditions": [
                {
                    "lastTransitionTime": pod["metadata"]["creationTimestamp"],
                    "message": not_mapped,
                    "observedGeneration": 1,
                    "reason": "Inadmissible",
                    "status": "False",
                    "type": "QuotaReserved",
                },
                {
                    "lastTransitionTime": pod["metadata"]["creationTimestamp"],
                    "message": not_mapped,
                    "observedGeneration": 1,
                    "reason": "Inadmissible",
                    "status": "False",
                    "type": "Requeued",
                },
            ]
        },
    }
    return [*objects, workload]


# ------------------------------------------------------------------ scheduler: no scheduler takes the Pod

NODENAME_KNOBS = Knobs()  # npu-node-02 is free: the Pod would fit there, had a scheduler allocated


def _node_name_preset(objects: Objects, builder: ClusterBuilder) -> Objects:
    """The decode Pod was created with spec.nodeName: the scheduler never sees it, its claim is never
    allocated, and the kubelet refuses to prepare a claim not reserved for the Pod.

    Texts: pkg/kubelet/cm/dra/manager.go prepareResources ("pod %s (%s) is not allowed to use
    ResourceClaim %s (%s)", wrapped as "prepare dynamic resources: %w") and
    pkg/kubelet/kuberuntime/kuberuntime_manager.go (FailedPrepareDynamicResources, "Failed to prepare
    dynamic resources: %v"); pkg/controller/resourceclaim/controller.go syncPod reserves a claim for such a
    Pod only when it is already allocated. The Pod's conditions are google/dranet#30's."""
    _, name = builder.target_pod()
    pod = _pod(objects, name)
    claim = _claim_of(objects, pod)
    node = "npu-node-02"
    pod["spec"]["nodeName"] = node
    created = pod["metadata"]["creationTimestamp"]

    def condition(kind: str, state: str, reason: str = "") -> dict[str, Any]:
        message = "containers with unready status: [modelserver]" if reason else ""
        return pod_condition(kind, state, created, reason, message)

    pod["status"].update(
        {
            "conditions": [
                condition("PodReadyToStartContainers", "False"),
                condition("Initialized", "True"),
                condition("Ready", "False", "ContainersNotReady"),
                condition("ContainersReady", "False", "ContainersNotReady"),
                condition("PodScheduled", "True"),
            ],
            "containerStatuses": [
                {
                    "image": "rebellions/rbln-modelserver:0.9.1",
                    "imageID": "",
                    "lastState": {},
                    "name": "modelserver",
                    "ready": False,
                    "restartCount": 0,
                    "started": False,
                    "state": {"waiting": {"reason": "ContainerCreating"}},
                }
            ],
            "hostIP": "10.0.0.12",
            "hostIPs": [{"ip": "10.0.0.12"}],
            "startTime": created,
        }
    )
    message = (
        "Failed to prepare dynamic resources: prepare dynamic resources: "
        f"pod {name} ({pod['metadata']['uid']}) is not allowed to use ResourceClaim "
        f"{claim['metadata']['name']} ({claim['metadata']['uid']})"
    )
    objects.append(_event(pod, "FailedPrepareDynamicResources", message, 38, "kubelet", host=node))
    return objects


SCHEDULER_NAME = "my-scheduler"


def _scheduler_not_running(objects: Objects, builder: ClusterBuilder) -> Objects:
    """The decode Pods name a second scheduler (the docs' my-scheduler) that runs nowhere.

    No scheduler serves `spec.schedulerName`, so nothing writes a condition or an event: the Pod stays
    Pending with no PodScheduled condition at all. The default scheduler runs and holds its lease
    (kube-system/kube-scheduler, coordination.k8s.io/v1, as leader election writes it); there is no Pod
    and no lease of my-scheduler, whose deployment in the docs' "Configure Multiple Schedulers" runs in
    kube-system with leader election on resourceName my-scheduler."""
    for pod in _decode_pods(objects):
        pod["spec"]["schedulerName"] = SCHEDULER_NAME
    lease = {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "creationTimestamp": "2026-07-16T03:12:09Z",
            "name": "kube-scheduler",
            "namespace": "kube-system",
            "uid": "7b1e0c44-0000-4000-8000-00000000c301",
        },
        "spec": {
            "acquireTime": "2026-09-01T11:02:17.204151Z",
            "holderIdentity": "cp-01_0c7d1f3a-8f4e-4b0e-9a51-2f3c0b9d6e21",
            "leaseDurationSeconds": 15,
            "leaseTransitions": 6,
            "renewTime": "2026-09-14T05:59:58.913204Z",
        },
    }
    return [*objects, lease]


def _scheduler_crashlooping(objects: Objects, builder: ClusterBuilder) -> Objects:
    """kube-scheduler panics while filtering an `allocationMode: All` claim over devices that consume
    shared counters (kubernetes/kubernetes#138882, fixed by #138885 in 1.36.2 and 1.35 patches): its
    static Pod crash-loops, its Lease is no longer renewed, and the decode Pod, never filtered to the
    end, has no PodScheduled condition and no event. Texts: the kubelet's CrashLoopBackOff message
    (pkg/kubelet/kuberuntime, "back-off %s restarting failed container=%s pod=%s"), a Go panic's exit
    code 2; the Lease as leader election writes it (client-go tools/leaderelection)."""
    info = next(o for o in objects if o["kind"] == "ClusterInfo")
    lease = next(o for o in objects if o["kind"] == "Lease" and o["metadata"]["name"] == "kube-scheduler")
    lease["spec"]["renewTime"] = "2026-09-14T05:49:31.802113Z"  # ten minutes before the read
    for pod in _decode_pods(objects):
        pod["status"].pop("conditions", None)
    pod_name = "kube-scheduler-cp-01"
    uid = "7b1e0c44-0000-4000-8000-00000000c401"
    scheduler = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": pod_name,
            "namespace": "kube-system",
            "uid": uid,
            "labels": {"component": "kube-scheduler", "tier": "control-plane"},
            "creationTimestamp": "2026-07-16T03:11:52Z",
        },
        "spec": {
            "nodeName": "cp-01",
            "priorityClassName": "system-node-critical",
            "containers": [{"name": "kube-scheduler", "image": "registry.k8s.io/kube-scheduler:v1.36.0"}],
        },
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
            "containerStatuses": [
                {
                    "name": "kube-scheduler",
                    "image": "registry.k8s.io/kube-scheduler:v1.36.0",
                    "imageID": "",
                    "ready": False,
                    "started": False,
                    "restartCount": 14,
                    "state": {
                        "waiting": {
                            "reason": "CrashLoopBackOff",
                            "message": "back-off 5m0s restarting failed container=kube-scheduler "
                            f"pod={pod_name}_kube-system({uid})",
                        }
                    },
                    "lastState": {
                        "terminated": {
                            "exitCode": 2,
                            "reason": "Error",
                            "startedAt": "2026-09-14T05:54:40Z",
                            "finishedAt": "2026-09-14T05:54:52Z",
                        }
                    },
                }
            ],
        },
    }
    assert info["readAt"] > lease["spec"]["renewTime"]
    return [o for o in objects if not (o["kind"] == "Event" and o.get("reason") == "FailedScheduling")] + [
        scheduler
    ]


# ------------------------------------------------------------------ allocated: the allocator timed out

TIMEOUT_KNOBS = Knobs()  # the decode Pod fits on npu-node-02 by the devices alone


def _filter_timeout(objects: Objects, builder: ClusterBuilder) -> Objects:
    """Both NPU nodes answer "timed out trying to allocate devices" (DRASchedulerFilterTimeout, 1.34+).

    Texts: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go Filter (1.34/1.35:
    statusUnschedulable "timed out trying to allocate devices" per node; 1.36 turns it into an error,
    kubernetes/kubernetes#137607), the FitError and PostFilter texts as kubernetes/kubernetes#133531
    quotes them."""
    _, name = builder.target_pod()
    pod = _pod(objects, name)
    message = fit_error_message(
        3,
        [
            [CONTROL_PLANE_TAINT],
            ["timed out trying to allocate devices"],
            ["timed out trying to allocate devices"],
        ],
        preemption_reasons=[NOT_HELPFUL] * 3,
    )
    _unschedulable(objects, pod, "Unschedulable", message, 12)
    return objects


# ------------------------------------------------------------------ bound: Bind is refused


BIND_KNOBS = Knobs()
BIND_ERROR = (
    'running Bind plugin "DefaultBinder": Internal error occurred: failed calling webhook '
    '"podsbinding-v1.kb.io": failed to call webhook: Post '
    '"https://slurm-operator-webhook.slinky.svc:443/mutate--v1-binding?timeout=10s": '
    'no endpoints available for service "slurm-operator-webhook"'
)


def _bind_refused(objects: Objects, builder: ClusterBuilder) -> Objects:
    """The decode Pod's claim is allocated on npu-node-02, and every Bind is refused by a pods/binding
    webhook whose service has no endpoints after a node reboot (SlinkyProject/slurm-operator#189).

    Texts: pkg/scheduler/framework/runtime/framework.go RunBindPlugins ("running Bind plugin %q: %w"),
    the API server's webhook dispatcher ("failed calling webhook %q: failed to call webhook: %v" in an
    InternalError), the Slinky v1.1.0 chart (helm/slurm-operator/templates/webhook/webhook.yaml: webhook
    podsbinding-v1.kb.io on pods/binding, service slurm-operator-webhook in the release namespace slinky,
    path /mutate--v1-binding, failurePolicy Fail, timeoutSeconds 10). The allocation stays and the
    reservation is gone: dynamicresources.go Unreserve after the failed binding cycle."""
    _, name = builder.target_pod()
    pod = _pod(objects, name)
    claim = _claim_of(objects, pod)
    node = "npu-node-02"
    claim["metadata"]["finalizers"] = ["resource.kubernetes.io/delete-protection"]
    claim["status"] = {
        "allocation": {
            "devices": {"results": _node_results(objects, node, 0)},
            "nodeSelector": _on_node(node),
        },
        "reservedFor": [],
    }
    _unschedulable(objects, pod, "SchedulerError", BIND_ERROR, 31)
    webhook = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "slurm-operator-webhook", "uid": "7b1e0c44-0000-4000-8000-00000000c401"},
        "webhooks": [
            {
                "admissionReviewVersions": ["v1"],
                "clientConfig": {
                    "service": {
                        "name": "slurm-operator-webhook",
                        "namespace": "slinky",
                        "path": "/mutate--v1-binding",
                        "port": 443,
                    }
                },
                "failurePolicy": "Fail",
                "matchPolicy": "Equivalent",
                "name": "podsbinding-v1.kb.io",
                "namespaceSelector": {
                    "matchExpressions": [
                        {
                            "key": "kubernetes.io/metadata.name",
                            "operator": "NotIn",
                            "values": ["kube-system", "slinky"],
                        }
                    ]
                },
                "objectSelector": {},
                "reinvocationPolicy": "Never",
                "rules": [
                    {
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE"],
                        "resources": ["pods/binding"],
                        "scope": "*",
                    }
                ],
                "sideEffects": "NoneOnDryRun",
                "timeoutSeconds": 10,
            }
        ],
    }
    return [*objects, webhook]


# ------------------------------------------------------------------ allocated (c1): shared claim, spread

SHARED = "npu-rdma-shared"
SHARED_KNOBS = Knobs(prefill_running=0, decode_running=1, prefill_pending=0, decode_pending=1)
ANTI_AFFINITY = (
    "node(s) didn't match pod anti-affinity rules"  # interpodaffinity ErrReasonAntiAffinityRulesNotMatch
)


def _shared_claim_spread(objects: Objects, builder: ClusterBuilder) -> Objects:
    """Both decode replicas name ResourceClaim npu-rdma-shared and must not share a node.

    The claim is allocated on npu-node-01 and reserved by the running replica. The pending replica:
    npu-node-01 fails InterPodAffinity first (Unschedulable: preemption looks, but the running replica
    has the same priority), npu-node-02 fails DynamicResources ("resourceclaim not available on the
    node", the claim's node selector), the control plane its taint. Without the anti-affinity the second
    replica would join the first on npu-node-01 and share its devices (google/dranet#139). Texts:
    interpodaffinity/filtering.go, dynamicresources.go Filter and PostFilter ("still not schedulable"),
    defaultpreemption ("No preemption victims found for incoming pod"), framework/types.go FitError."""
    running, pending = sorted(_decode_pods(objects), key=lambda p: 0 if p["spec"].get("nodeName") else 1)
    held = _claim_of(objects, running)
    objects = [o for o in objects if not (o["kind"] == "ResourceClaim" and o is not held)]
    meta = held["metadata"]
    for key in ("ownerReferences", "generateName", "annotations"):
        meta.pop(key, None)
    meta["name"] = SHARED
    anti = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {
                        "matchLabels": {
                            "app.kubernetes.io/component": "decode",
                            "app.kubernetes.io/instance": builder.knobs.release,
                        }
                    },
                    "topologyKey": "kubernetes.io/hostname",
                }
            ]
        }
    }
    for pod in (running, pending):
        pod["spec"]["resourceClaims"] = [{"name": "npu-rdma", "resourceClaimName": SHARED}]
        pod["spec"]["affinity"] = copy.deepcopy(anti)
        pod["status"].pop("resourceClaimStatuses", None)  # only generated claims are listed there
    message = fit_error_message(
        3,
        [[CONTROL_PLANE_TAINT], [ANTI_AFFINITY], ["resourceclaim not available on the node"]],
        preemption_reasons=[NOT_HELPFUL, "No preemption victims found for incoming pod", NOT_HELPFUL],
    )
    _unschedulable(objects, pending, "Unschedulable", message, 22)
    return objects


# ------------------------------------------------------------------ allocated (c2): All, on the only node

ALL_KNOBS = Knobs(prefill_running=0, decode_running=1, prefill_pending=0, decode_pending=0)
BURNIN_NS, BURNIN_JOB = "npu-ops", "npu-burnin-node01"
BURNIN_POD = f"{BURNIN_JOB}-q7d4m"
BURNIN_UID = "7b1e0c44-0000-4000-8000-00000000c501"


def _all_on_only_node(objects: Objects, builder: ClusterBuilder) -> Objects:
    """An NPU burn-in Job pinned to npu-node-01 asks for every NPU there; a decode Pod holds four.

    npu-node-02 is excluded by the Pod's nodeSelector (not by devices), the control plane by its taint,
    and on npu-node-01 an `All` request cannot be satisfied while any matching device is allocated
    (allocator test case all-devices-some-allocated). Texts: dynamicresources.go Filter ("cannot allocate
    all claims"), nodeaffinity ("node(s) didn't match Pod's node affinity/selector"), tainttoleration,
    FitError; the claim as the claim controller generates it from the RCT."""
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {
            "creationTimestamp": "2026-09-14T04:50:00Z",
            "name": "npu-all",
            "namespace": BURNIN_NS,
            "uid": "7b1e0c44-0000-4000-8000-00000000c502",
        },
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "npu", "exactly": {"deviceClassName": NPU_CLASS, "allocationMode": "All"}}
                    ]
                }
            }
        },
    }
    claim_name = f"{BURNIN_POD}-npu-8hx2c"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": "2026-09-14T05:10:00Z",
            "generateName": f"{BURNIN_JOB}-",
            "labels": {
                "batch.kubernetes.io/controller-uid": "7b1e0c44-0000-4000-8000-00000000c503",
                "batch.kubernetes.io/job-name": BURNIN_JOB,
                "controller-uid": "7b1e0c44-0000-4000-8000-00000000c503",
                "job-name": BURNIN_JOB,
            },
            "name": BURNIN_POD,
            "namespace": BURNIN_NS,
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "Job",
                    "name": BURNIN_JOB,
                    "uid": "7b1e0c44-0000-4000-8000-00000000c503",
                }
            ],
            "uid": BURNIN_UID,
        },
        "spec": {
            "containers": [
                {
                    "args": ["--all-devices", "--duration=30m"],
                    "image": "registry.example.com/npu-burnin:1.2",
                    "name": "burnin",
                    "resources": {"claims": [{"name": "npu"}]},
                }
            ],
            "nodeSelector": {"kubernetes.io/hostname": "npu-node-01"},
            "resourceClaims": [{"name": "npu", "resourceClaimTemplateName": "npu-all"}],
            "restartPolicy": "Never",
            "schedulerName": "default-scheduler",
            "tolerations": [  # what the DefaultTolerationSeconds admission plugin adds to every Pod
                {
                    "effect": "NoExecute",
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "tolerationSeconds": 300,
                },
                {
                    "effect": "NoExecute",
                    "key": "node.kubernetes.io/unreachable",
                    "operator": "Exists",
                    "tolerationSeconds": 300,
                },
            ],
        },
        "status": {
            "phase": "Pending",
            "qosClass": "BestEffort",
            "resourceClaimStatuses": [{"name": "npu", "resourceClaimName": claim_name}],
        },
    }
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "annotations": {"resource.kubernetes.io/pod-claim-name": "npu"},
            "creationTimestamp": "2026-09-14T05:10:01Z",
            "generateName": f"{BURNIN_POD}-npu-",
            "name": claim_name,
            "namespace": BURNIN_NS,
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "Pod",
                    "name": BURNIN_POD,
                    "uid": BURNIN_UID,
                }
            ],
            "uid": "7b1e0c44-0000-4000-8000-00000000c504",
        },
        "spec": copy.deepcopy(template["spec"]["spec"]),
    }
    message = fit_error_message(
        3,
        [
            [CONTROL_PLANE_TAINT],
            ["cannot allocate all claims"],
            ["node(s) didn't match Pod's node affinity/selector"],
        ],
        preemption_reasons=[NOT_HELPFUL] * 3,
    )
    objects = [*objects, template, pod, claim]
    _unschedulable(objects, pod, "Unschedulable", message, 9)
    return objects


# ------------------------------------------------------------------ the list


_WRONG_CLAIM = {"claim-not-created", "claim-template-missing"}

SCENARIOS: list[Scenario] = [
    _scenario(
        "created-replacement-refused",
        "The only decode replica was terminated by graceful node shutdown (Failed, reason Terminated, "
        "https://github.com/kubernetes/kubernetes/issues/98012) and its ReplicaSet cannot create the "
        "replacement: a Pod mutating webhook on an old k8s.io/api drops resourceClaimTemplateName "
        "(https://github.com/kubernetes/kubernetes/issues/131044), so every create is invalid "
        "(FailedCreate, ReplicaFailure; https://github.com/kubernetes/kubernetes/issues/131877). `why` is "
        "asked about the Failed Pod, the only one `kubectl get pods` shows.",
        _replacement_refused,
        stage="created",
        must=NOT_RECOGNISED,
        must_not=DEVICE_BLAME | NODE_STAGES | _WRONG_CLAIM | {"claim-not-allocated", "not-device-related"},
        knobs=CREATED_KNOBS,
    ),
    _scenario(
        "claims-created-quota-exceeded",
        "The serving namespace's ResourceQuota allows 8 NPUs "
        f"({NPU_QUOTA}, https://github.com/kubernetes/enhancements/pull/4808); the two running Pods' "
        "claims hold them, so the claim controller's create is forbidden (FailedResourceClaimCreation "
        "exceeded quota). Workload authors get no admission feedback for claims their controllers make "
        "(https://github.com/kubernetes-sigs/wg-device-management/issues/24); quota on resourceclaims is "
        "tested upstream (https://github.com/kubernetes/kubernetes/issues/128410).",
        _claim_quota_exceeded,
        stage="claims-created",
        must=NOT_RECOGNISED,
        must_not=DEVICE_BLAME
        | NODE_STAGES
        | _WRONG_CLAIM
        | {"admin-access-label-missing", "not-device-related"},
        knobs=QUOTA_KNOBS,
    ),
    _scenario(
        "queued-kueue-gate-not-mapped",
        f"Kueue manages the decode Pods and gates them with {KUEUE_GATE} "
        "(https://github.com/kubernetes-sigs/kueue/pull/9541); its DRA deviceClassMappings name only the "
        "NPU class, so the Workload is Inadmissible: DeviceClass dranet is not mapped in DRA configuration "
        "(https://github.com/kubernetes-sigs/kueue/issues/10504). The Pod stays SchedulingGated although "
        "its devices are free.",
        _kueue_gated,
        stage="queued",
        must=NOT_RECOGNISED,
        must_not=DEVICE_BLAME | NODE_STAGES | _WRONG_CLAIM | {"not-device-related", "scheduler-error"},
        knobs=QUEUED_KNOBS,
    ),
    _scenario(
        "scheduler-bypassed-by-nodename",
        "The decode Pod was created with spec.nodeName: npu-node-02, so no scheduler allocates its claim "
        "(https://github.com/kubernetes/kubernetes/issues/114005, "
        "https://github.com/kubernetes/kubernetes/issues/118468) and the kubelet says it is not allowed "
        "to use the ResourceClaim (https://github.com/google/dranet/issues/30). The claim controller "
        "reserves claims for such Pods only once allocated "
        "(https://github.com/kubernetes/kubernetes/pull/118209).",
        _node_name_preset,
        stage="scheduler",
        must=NOT_RECOGNISED,
        must_not=DEVICE_BLAME | NODE_STAGES | _WRONG_CLAIM | {"not-device-related"},
        knobs=NODENAME_KNOBS,
    ),
    _scenario(
        "scheduler-name-not-running",
        f"The decode Pods set schedulerName: {SCHEDULER_NAME} (the second scheduler of the docs' "
        "Configure Multiple Schedulers), and no such scheduler runs: the Pod stays Pending with no "
        "condition and no event (https://github.com/kubernetes/website/issues/36424, "
        "https://github.com/gocrane/crane-scheduler/issues/5). Only default-scheduler holds a lease.",
        _scheduler_not_running,
        stage="scheduler",
        must=NOT_RECOGNISED,
        must_not=DEVICE_BLAME | NODE_STAGES | _WRONG_CLAIM | {"not-device-related", "scheduler-error"},
        knobs=NODENAME_KNOBS,
    ),
    _scenario(
        "scheduler-crashlooping",
        "kube-scheduler panics while filtering an `allocationMode: All` claim over devices that consume "
        "shared counters (https://github.com/kubernetes/kubernetes/issues/138882, fixed by "
        "https://github.com/kubernetes/kubernetes/pull/138885): its static Pod crash-loops, its Lease "
        "kube-system/kube-scheduler was last renewed ten minutes before the read, and the decode Pod has "
        "no condition and no event. `why` reads the Lease against the read time and the scheduler's Pod.",
        _scheduler_crashlooping,
        stage="scheduler",
        must=NOT_RECOGNISED,
        must_not=DEVICE_BLAME | NODE_STAGES | _WRONG_CLAIM | {"not-device-related", "scheduler-error"},
        knobs=NODENAME_KNOBS,
    ),
    _scenario(
        "allocated-filter-timeout",
        "Both NPU nodes answer `timed out trying to allocate devices`: the allocator exceeded the "
        "scheduler's filterTimeout (https://github.com/kubernetes/kubernetes/pull/132033), with an "
        "overloaded control plane as the likely cause "
        "(https://github.com/kubernetes/kubernetes/issues/133531). The devices would fit.",
        _filter_timeout,
        stage="allocated",
        must=NOT_RECOGNISED,
        must_not=DEVICE_BLAME
        | NODE_STAGES
        | _WRONG_CLAIM
        | {"not-device-related", "scheduler-error", "selector-error", "simulation-disagrees"},
        knobs=TIMEOUT_KNOBS,
    ),
    _scenario(
        "bound-bind-webhook-unavailable",
        "The decode Pod's claim is allocated on npu-node-02, but every Bind fails: the Slinky "
        "slurm-operator's pods/binding webhook (failurePolicy Fail) has no endpoints after a node reboot "
        "(https://github.com/SlinkyProject/slurm-operator/issues/189, "
        "https://github.com/SlinkyProject/slurm-operator/pull/196). Unreserve leaves the claim "
        "allocated and unreserved between attempts.",
        _bind_refused,
        stage="bound",
        must=NOT_RECOGNISED,
        must_not=DEVICE_BLAME
        | NODE_STAGES
        | _WRONG_CLAIM
        | {
            "binding-conditions-pending",
            "binding-failed",
            "binding-gate-disabled",
            "claim-not-allocated",
            "claim-reserved-for-full",
            "not-device-related",
            "scheduler-error",
        },
        knobs=BIND_KNOBS,
    ),
    _scenario(
        "shared-claim-spread-replicas",
        "Both decode replicas name one ResourceClaim, npu-rdma-shared (resourceClaimName, as in "
        "https://github.com/google/dranet/issues/139), allocated on npu-node-01 for the first; the "
        "Deployment also spreads replicas with required podAntiAffinity on kubernetes.io/hostname, so "
        "the second fits nowhere: anti-affinity on npu-node-01, `resourceclaim not available on the "
        "node` elsewhere (the claim pinned to a node the Pod cannot use, as asked in "
        "https://github.com/kubernetes/enhancements/pull/3064). shared-claim-node-unusable is the "
        "cause; its rule does not read inter-pod anti-affinity yet.",
        _shared_claim_spread,
        stage="allocated",
        must={"shared-claim-node-unusable"},
        must_not={
            "claim-not-created",
            "claim-not-allocated",
            "claim-being-deleted",
            "claim-reserved-for-full",
            "devices-exhausted",
            "insufficient-devices",
            "not-device-related",
        },
        knobs=SHARED_KNOBS,
    ),
    _scenario(
        "all-mode-only-node-held",
        "An NPU burn-in Job Pod pinned to npu-node-01 (nodeSelector) asks for allocationMode: All NPUs "
        "(https://github.com/kubernetes/kubernetes/issues/127554, "
        "https://github.com/kubernetes/kubernetes/pull/129560); a running decode Pod holds four of the "
        "eight there, and npu-node-02 is excluded by the selector, not by devices.",
        _all_on_only_node,
        stage="allocated",
        must={"devices-exhausted"},
        must_not={
            "claim-not-created",
            "device-class-missing",
            "driver-slices-missing",
            "insufficient-devices",
            "not-device-related",
            "rds-label-missing",
        },
        knobs=ALL_KNOBS,
        pending_pod=(BURNIN_NS, BURNIN_POD),
    ),
]
