"""Node-side scenarios for the stages of a Pod's life (diagnose/lifecycle.py), each from a public
upstream report or the upstream source: the Pod is bound, and the node does not run it.

- admitted: the kubelet refused the Pod (phase Failed, status.reason/message as
  pkg/kubelet/lifecycle/predicate.go and kubelet.go rejectPod write them), once, and in a loop its
  owner keeps feeding;
- prepared: the kubelet's DRA manager never prepared one of the Pod's claims; and, a known cause in
  an older kubelet's words, the driver's kubelet plugin is not registered;
- sandbox: the CNI plugin failed the sandbox before any NRI hook ran;
- running: the container is OOMKilled and restarts; a deleted Pod stays Terminating because the
  DRA driver that must unprepare its claim is gone from the node;
- devices: the Pod runs, but without the RDMA device its NIC has, and no check can tell.

Each is the reference cluster of builder.py (seed SEED) edited in v1 into what `kubectl get -o json`
shows, then put in the asked API shape (scenario_kit.edited_scenario). Texts a component writes are
copied from the report or from its source; each edit names them. Where an object a controller would
delete is gone (a Failed Pod's generated claim: pkg/controller/resourceclaim/controller.go,
"deleting unused generated claim"), it is absent here too. A ClusterInfo item gives the time of the
read (`readAt`, the builder's time zero), so ages are the read's, not the test run's.

Not listed in scenarios.py: the lead wires them in once the stage engine is there. `recognised=False`
scenarios expect `cause-not-recognised`: no rule of `why` knows their cause today.
"""

from __future__ import annotations

import copy
import re
import zlib
from datetime import datetime, timedelta, timezone
from typing import Any

from kubectl_rbln.cluster.exec_probe import PROBE_COMMAND, format_probe_output
from kubectl_rbln.domain import NIC_DRIVER, NPU_CLASS, NPU_DRIVER, NPU_LABEL, RDS_LABEL
from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.ids import ts
from testing.synthetic.scenario_kit import DEVICE_BLAME, SEED, Scenario, edited_scenario, pod_condition
from testing.synthetic.upstream_after_scheduling import plugin_pod

Objects = list[dict[str, Any]]

KNOBS = Knobs(prefill_running=1, decode_running=1, prefill_pending=0, decode_pending=0, captures=False)
TARGET = ClusterBuilder(SEED, "v1", KNOBS).target_pod()  # the running decode Pod on npu-node-01
CONTAINER = "modelserver"
PLUGIN_API = "kubectl-rbln/v1"
# A bound Pod is never the scheduler's, the claim controller's or the allocator's problem.
NODE_MUST_NOT = DEVICE_BLAME | {
    "claim-not-created",
    "claim-not-allocated",
    "claim-template-missing",
    "claim-stale",
    "not-device-related",
    "scheduler-error",
    "selector-error",
    "simulation-disagrees",
}
IMPLICIT_NPU = f"deviceclass.resource.kubernetes.io/{NPU_CLASS}"  # KEP-5004's name for any DeviceClass


# ---------------------------------------------------------------------------------- helpers


def _find(objects: Objects, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
    return next(
        o
        for o in objects
        if o["kind"] == kind
        and o["metadata"]["name"] == name
        and (namespace is None or o["metadata"].get("namespace") == namespace)
    )


def _target(objects: Objects) -> dict[str, Any]:
    return _find(objects, "Pod", TARGET[1], TARGET[0])


def _claim_of(objects: Objects, pod: dict[str, Any]) -> dict[str, Any]:
    name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    return _find(objects, "ResourceClaim", name, pod["metadata"]["namespace"])


def _drop(objects: Objects, obj: dict[str, Any]) -> None:
    objects[:] = [o for o in objects if o is not obj]


def _read_at() -> dict[str, Any]:
    """What `dump` records beside the objects; here only the time of the read (time zero)."""
    return {
        "apiVersion": PLUGIN_API,
        "kind": "ClusterInfo",
        "metadata": {"name": "cluster"},
        "readAt": ts(0),
    }


def _event(
    obj: dict[str, Any],
    reason: str,
    message: str,
    *,
    count: int,
    first: int,
    last: int,
    warning: bool = True,
    component: str = "kubelet",
    host: str = "",
) -> dict[str, Any]:
    """A core/v1 Event about `obj` (Pod, Node, ReplicaSet) as `kubectl get events -o json` shows it."""
    meta = obj["metadata"]
    namespace = meta.get("namespace", "default")
    key = f"{reason}\x1f{message}".encode()
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{meta['name']}.{zlib.crc32(key):08x}", "namespace": namespace},
        "involvedObject": {
            "apiVersion": obj["apiVersion"],
            "kind": obj["kind"],
            "name": meta["name"],
            "namespace": meta.get("namespace", ""),
            # the kubelet's nodeRef carries the node's name as its uid (pkg/kubelet/kubelet.go)
            "uid": meta["name"] if obj["kind"] == "Node" else meta.get("uid", ""),
        },
        "reason": reason,
        "message": message,
        "type": "Warning" if warning else "Normal",
        "count": count,
        "firstTimestamp": ts(first),
        "lastTimestamp": ts(last),
        "source": {"component": component, **({"host": host} if host else {})},
        "reportingComponent": component,
        "reportingInstance": host,
    }


UNREADY = f"containers with unready status: [{CONTAINER}]"  # kubelet status/generate.go


def _not_ready(pod: dict[str, Any], at: str, *, sandbox: bool) -> None:
    """The kubelet's conditions for a Pod whose container does not run: sandbox made (or not)."""
    old = {c["type"]: c for c in pod["status"].get("conditions", [])}
    scheduled = old.get("PodScheduled") or pod_condition("PodScheduled", "True", at)
    pod["status"]["conditions"] = [
        pod_condition("PodReadyToStartContainers", "True" if sandbox else "False", at),
        old.get("Initialized") or pod_condition("Initialized", "True", at),
        pod_condition("Ready", "False", at, "ContainersNotReady", UNREADY),
        pod_condition("ContainersReady", "False", at, "ContainersNotReady", UNREADY),
        scheduled,
    ]


def _waiting(pod: dict[str, Any], reason: str, message: str = "", image: str = "") -> None:
    """The container never started: waiting in `reason` (ContainerCreating, CreateContainerConfigError)."""
    waiting = {"reason": reason, **({"message": message} if message else {})}
    container = pod["spec"]["containers"][0]
    pod["status"]["containerStatuses"] = [
        {
            "image": image or container["image"],
            "imageID": "",
            "lastState": {},
            "name": container["name"],
            "ready": False,
            "restartCount": 0,
            "started": False,
            "state": {"waiting": waiting},
        }
    ]


def _pending_on_node(pod: dict[str, Any], *, sandbox: bool) -> None:
    """A bound Pod the kubelet has not started: Pending; no Pod IP until the sandbox exists."""
    status = pod["status"]
    status["phase"] = "Pending"
    if not sandbox:
        for key in ("podIP", "podIPs"):
            status.pop(key, None)
    _not_ready(pod, status.get("startTime", ts(-600)), sandbox=sandbox)


def _rejected(pod: dict[str, Any], reason: str, message: str) -> None:
    """kubelet.go rejectPod: phase Failed, the admit handler's reason, `Pod was rejected: <message>`.

    The status manager keeps what the kubelet does not own (PodScheduled, resourceClaimStatuses,
    extendedResourceClaimStatus: status_manager.go mergePodStatus) and the first startTime; the
    kubelet's conditions, IPs and container statuses are not in the rejected status."""
    old = pod["status"]
    status: dict[str, Any] = {
        "phase": "Failed",
        "reason": reason,
        "message": f"Pod was rejected: {message}",
        "qosClass": old.get("qosClass", "Burstable"),
        "conditions": [c for c in old.get("conditions", []) if c["type"] == "PodScheduled"],
    }
    for key in ("startTime", "resourceClaimStatuses", "extendedResourceClaimStatus"):
        if key in old:
            status[key] = old[key]
    pod["status"] = status


_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def _shift(obj: Any, seconds: int) -> Any:
    """Every RFC 3339 time in `obj` moved by `seconds` (an object created later than the builder made it)."""
    if isinstance(obj, dict):
        return {k: _shift(v, seconds) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_shift(v, seconds) for v in obj]
    if isinstance(obj, str) and _STAMP.match(obj):
        moved = datetime.strptime(obj, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        return (moved + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return obj


def _replace(objects: Objects, old: dict[str, Any], new: dict[str, Any]) -> None:
    objects[objects.index(old)] = new


def _node(objects: Objects, name: str) -> dict[str, Any]:
    return _find(objects, "Node", name)


def _seconds(stamp: str) -> int:
    """An RFC 3339 time of the builder as seconds from time zero (ts's inverse)."""
    at = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    zero = datetime.strptime(ts(0), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return int((at - zero).total_seconds())


# ---------------------------------------------------------------------------------- admitted


NODE_AFFINITY = "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"
TWO_DECODE = KNOBS.replace(decode_running=2)


# https://github.com/kubernetes/kubernetes/issues/100467 ("Pods fail with "NodeAffinity failed" after
# kubelet restarts": a Running Pod is re-admitted when the kubelet starts and is rejected before the
# kubelet has its Node's labels), https://github.com/kubernetes/kubernetes/issues/102387 ("Pods stuck
# as failed with "Pod Predicate NodeAffinity failed""), https://github.com/longhorn/longhorn/issues/6930
# (`Reason: NodeAffinity`, `Message: Pod was rejected: Predicate NodeAffinity failed`), and
# https://github.com/kubernetes-sigs/node-feature-discovery/issues/1752 (NFD removes and re-adds the node
# labels it owns when nfd-worker restarts; the RBLN NPU Feature Discovery labels, rebellions.ai/npu.*,
# come through NFD's local source). Texts: pkg/kubelet/lifecycle/predicate.go (PredicateFailureError
# "Predicate %s failed: %s", nodeaffinity.ErrReasonPod; the longhorn report's older kubelet printed the
# predicate without its reason) and kubelet.go rejectPod ("Pod was rejected: ").
def _node_affinity(objects: Objects, builder: ClusterBuilder) -> Objects:
    pod = _target(objects)
    node = pod["spec"]["nodeName"]
    restarted = -1800
    for other in objects:  # the decode Deployment's template selects NPU nodes by the NFD label
        if other["kind"] == "Pod" and "decode" in other["metadata"]["name"]:
            other["spec"]["nodeSelector"] = {NPU_LABEL: "true"}
    _drop(objects, _claim_of(objects, pod))  # the claim controller deleted the Failed Pod's claim
    _rejected(pod, "NodeAffinity", NODE_AFFINITY)
    objects.append(
        _event(
            pod, "NodeAffinity", NODE_AFFINITY, count=1, first=restarted + 4, last=restarted + 4, host=node
        )
    )
    node_obj = _node(objects, node)
    for condition in node_obj["status"]["conditions"]:
        if condition["type"] == "Ready":
            condition["lastTransitionTime"] = ts(restarted + 12)
    objects.append(
        _event(
            node_obj,
            "Starting",
            "Starting kubelet.",  # pkg/kubelet/kubelet.go, events.StartingKubelet
            count=1,
            first=restarted,
            last=restarted,
            warning=False,
            host=node,
        )
    )
    # the ReplicaSet's replacement, created when the rejected Pod turned Failed, runs on the other node
    replacement = next(
        o for o in objects if o["kind"] == "Pod" and "decode" in o["metadata"]["name"] and o is not pod
    )
    claim = _claim_of(objects, replacement)
    delta = restarted + 6 - _seconds(replacement["metadata"]["creationTimestamp"])
    _replace(objects, replacement, _shift(replacement, delta))
    _replace(objects, claim, _shift(claim, delta))
    objects.append(_read_at())
    return objects


# https://github.com/kubernetes/kubernetes/issues/135667 ("DRA implicit extended resource should be
# treated the same as regular extended resource during pod admission": the kubelet drops a missing
# extended resource from the admission check, but not a `deviceclass.resource.kubernetes.io/<class>`
# one), fixed by https://github.com/kubernetes/kubernetes/pull/135725 ("DRA: Fixed Kubelet admission to
# correctly handle DRA-backed extended resources, allowing pods to be admitted even when these resources
# are not present in the node's allocatable capacity"). The scheduler allocates the Pod's devices and
# binds it; the kubelet rejects it with OutOf<resource> (predicate.go InsufficientResourcePrefix,
# InsufficientResourceError "Node didn't have enough resource: %s, requested: %d, used: %d, capacity:
# %d"). The ReplicaSet ignores the Failed Pod and creates another, forever:
# https://github.com/kubernetes/kubernetes/issues/108152 ("Deployment will create pod infinitely if pod
# failed with UnexpectedAdmissionError"), https://github.com/kubernetes/kubernetes/issues/99502
# ("creating hundreds of pods while creating a rejected deployment"),
# https://github.com/kubernetes/kubernetes/issues/114637 (OutOfmemory Pods piling up). Events:
# "Created pod: %v" (pkg/controller/controller_utils.go), "Successfully assigned %v/%v to %v"
# (pkg/scheduler/schedule_one.go); the Deployment's condition texts are
# pkg/controller/deployment/util/deployment_util.go's.
LOOP_HASH = "7c9d5f8b6c"
LOOP_SUFFIXES = ("2kq8d", "5wz7r", "8mxvb", "c4j9t", "hn6pf", "x7lq2")
LOOP_NODE = "npu-node-02"
LOOP_EVERY = 8  # seconds between a rejection and the next Pod
OUT_OF_NPU = f"Node didn't have enough resource: {IMPLICIT_NPU}, requested: 4, used: 0, capacity: 0"


def _loop_pod(template: dict[str, Any], builder: ClusterBuilder, suffix: str, created: int) -> dict[str, Any]:
    namespace = template["metadata"]["namespace"]
    replica_set = f"{builder.knobs.release}-decode-{LOOP_HASH}"
    name = f"{replica_set}-{suffix}"
    pod = copy.deepcopy(template)
    meta = pod["metadata"]
    meta.update(
        name=name,
        generateName=f"{replica_set}-",
        uid=builder.ids.uid("Pod", namespace, name),
        creationTimestamp=ts(created),
        resourceVersion=str(480000 + created + 100),
    )
    meta["labels"]["pod-template-hash"] = LOOP_HASH
    meta["ownerReferences"][0].update(
        name=replica_set, uid=builder.ids.uid("ReplicaSet", namespace, replica_set)
    )
    spec = pod["spec"]
    spec.pop("resourceClaims", None)
    spec["nodeName"] = LOOP_NODE
    resources = spec["containers"][0]["resources"]
    resources.pop("claims", None)
    resources["limits"][IMPLICIT_NPU] = "4"
    resources["requests"][IMPLICIT_NPU] = "4"
    pod["status"] = {
        "phase": "Pending",
        "qosClass": "Burstable",
        "startTime": ts(created + 1),
        "conditions": [pod_condition("PodScheduled", "True", ts(created + 1))],
        # the scheduler's claim for the extended resource, deallocated and deleted once the Pod failed
        # (kubernetes/kubernetes#134312); its request is container-<i>-request-<j>, j the index of the
        # resource in the container's sorted requests (cpu, deviceclass..., memory)
        "extendedResourceClaimStatus": {
            "requestMappings": [
                {
                    "containerName": CONTAINER,
                    "requestName": "container-0-request-1",
                    "resourceName": IMPLICIT_NPU,
                }
            ],
            "resourceClaimName": f"{name}-extended-resources-{builder.ids.suffix(5, 'erc', name)}",
        },
    }
    _rejected(pod, f"OutOf{IMPLICIT_NPU}", OUT_OF_NPU)
    return pod


def _loop_owners(template: dict[str, Any], builder: ClusterBuilder, pods: Objects) -> Objects:
    namespace = template["metadata"]["namespace"]
    release = builder.knobs.release
    deployment = f"{release}-decode"
    replica_set = f"{deployment}-{LOOP_HASH}"
    labels = {k: v for k, v in template["metadata"]["labels"].items() if k != "pod-template-hash"}
    pod_spec = copy.deepcopy(pods[-1]["spec"])
    pod_spec.pop("nodeName", None)
    pod_template = {"metadata": {"labels": {**labels, "pod-template-hash": LOOP_HASH}}, "spec": pod_spec}
    rollout = ts(-60 - LOOP_EVERY)
    rs = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": replica_set,
            "namespace": namespace,
            "uid": builder.ids.uid("ReplicaSet", namespace, replica_set),
            "creationTimestamp": rollout,
            "generation": 1,
            "labels": {**labels, "pod-template-hash": LOOP_HASH},
            "annotations": {"deployment.kubernetes.io/revision": "2"},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "Deployment",
                    "name": deployment,
                    "uid": builder.ids.uid("Deployment", namespace, deployment),
                }
            ],
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {**labels, "pod-template-hash": LOOP_HASH}},
            "template": pod_template,
        },
        "status": {"replicas": 1, "fullyLabeledReplicas": 1, "observedGeneration": 1},
    }
    deploy = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": deployment,
            "namespace": namespace,
            "uid": builder.ids.uid("Deployment", namespace, deployment),
            "creationTimestamp": ts(-3600 * 5),
            "generation": 2,
            "labels": labels,
            "annotations": {"deployment.kubernetes.io/revision": "2"},
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "strategy": {
                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
                "type": "RollingUpdate",
            },
            "template": {"metadata": {"labels": labels}, "spec": pod_spec},
        },
        "status": {
            "observedGeneration": 2,
            "replicas": 2,
            "updatedReplicas": 1,
            "readyReplicas": 1,
            "availableReplicas": 1,
            "unavailableReplicas": 1,
            "conditions": [
                pod_condition(
                    "Available",
                    "True",
                    ts(-3600 * 5 + 300),
                    "MinimumReplicasAvailable",
                    "Deployment has minimum availability.",
                ),
                pod_condition(
                    "Progressing",
                    "True",
                    rollout,
                    "ReplicaSetUpdated",
                    f'ReplicaSet "{replica_set}" is progressing.',
                ),
            ],
        },
    }
    for condition in deploy["status"]["conditions"]:
        condition.pop("lastProbeTime")
        condition["lastUpdateTime"] = condition["lastTransitionTime"]
    return [deploy, rs]


def _rejected_loop(objects: Objects, builder: ClusterBuilder) -> Objects:
    template = _target(objects)
    pods = []
    for index, suffix in enumerate(LOOP_SUFFIXES):
        created = -60 + index * LOOP_EVERY
        pods.append(_loop_pod(template, builder, suffix, created))
    owners = _loop_owners(template, builder, pods)
    replica_set = owners[1]
    objects += owners + pods
    for index, pod in enumerate(pods):
        created = -60 + index * LOOP_EVERY
        name = pod["metadata"]["name"]
        namespace = pod["metadata"]["namespace"]
        objects.append(
            _event(
                replica_set,
                "SuccessfulCreate",
                f"Created pod: {name}",
                count=1,
                first=created,
                last=created,
                warning=False,
                component="replicaset-controller",
            )
        )
        objects.append(
            _event(
                pod,
                "Scheduled",
                f"Successfully assigned {namespace}/{name} to {LOOP_NODE}",
                count=1,
                first=created + 1,
                last=created + 1,
                warning=False,
                component="default-scheduler",
            )
        )
        objects.append(
            _event(
                pod,
                f"OutOf{IMPLICIT_NPU}",
                OUT_OF_NPU,
                count=1,
                first=created + 2,
                last=created + 2,
                host=LOOP_NODE,
            )
        )
    objects.append(_read_at())
    return objects


LOOP_TARGET = (TARGET[0], f"{KNOBS.release}-decode-{LOOP_HASH}-{LOOP_SUFFIXES[-1]}")


# ---------------------------------------------------------------------------------- prepared


# https://github.com/kubernetes/kubernetes/issues/135901 ("Kubelet cannot handle multiple ResourceClaims
# if one is already prepared": a first Pod uses one claim, a second uses the same claim and another; the
# kubelet's DRA manager stops at the claim already prepared and never prepares the other, and container
# creation fails with "Error: internal error: unable to get claim info for ResourceClaim <name>"), on
# v1.34.1; fixed by https://github.com/kubernetes/kubernetes/pull/135919, backported to 1.34
# (https://github.com/kubernetes/kubernetes/pull/136480) and 1.35
# (https://github.com/kubernetes/kubernetes/pull/136463). The Pods and claims are the report's, with the
# RBLN DeviceClass for gpu.example.com. Texts: pkg/kubelet/cm/dra/manager.go ("internal error: unable to
# get claim info for ResourceClaim %s"), pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer
# (event Failed "Error: %v", waiting reason CreateContainerConfigError).
PREPARE_NODE = "npu-node-02"
PREPARE_NAMESPACE = "default"
CLAIM_INFO = "internal error: unable to get claim info for ResourceClaim second-resource-claim"


def _named_claim(
    builder: ClusterBuilder, name: str, device: str, holders: list[dict[str, Any]]
) -> dict[str, Any]:
    created = -1500 if name.startswith("first") else -700
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": name,
            "namespace": PREPARE_NAMESPACE,
            "uid": builder.ids.uid("ResourceClaim", PREPARE_NAMESPACE, name),
            "creationTimestamp": ts(created),
            "resourceVersion": str(470000 - created),
            "finalizers": ["resource.kubernetes.io/delete-protection"],
        },
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "request",
                        "exactly": {"deviceClassName": NPU_CLASS, "allocationMode": "ExactCount", "count": 1},
                    }
                ]
            }
        },
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"device": device, "driver": NPU_DRIVER, "pool": PREPARE_NODE, "request": "request"}
                    ]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": [PREPARE_NODE]}
                            ]
                        }
                    ]
                },
            },
            "reservedFor": [
                {"name": p["metadata"]["name"], "resource": "pods", "uid": p["metadata"]["uid"]}
                for p in holders
            ],
        },
    }


def _test_pod(builder: ClusterBuilder, name: str, claims: list[str], created: int) -> dict[str, Any]:
    """The report's Pod, bound to the NPU node the scheduler picked."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": PREPARE_NAMESPACE,
            "uid": builder.ids.uid("Pod", PREPARE_NAMESPACE, name),
            "creationTimestamp": ts(created),
            "resourceVersion": str(470100 - created),
        },
        "spec": {
            "containers": [
                {
                    "name": "container",
                    "image": "busybox",
                    "command": ["sleep", "infinity"],
                    "imagePullPolicy": "Always",
                    "resources": {"claims": [{"name": claim.split("-")[0]} for claim in claims]},
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                }
            ],
            "resourceClaims": [{"name": claim.split("-")[0], "resourceClaimName": claim} for claim in claims],
            "restartPolicy": "Never",
            "nodeName": PREPARE_NODE,
            "schedulerName": "default-scheduler",
            "serviceAccountName": "default",
            "dnsPolicy": "ClusterFirst",
            "enableServiceLinks": True,
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0,
            "terminationGracePeriodSeconds": 30,
        },
        "status": {
            "phase": "Running",
            "qosClass": "BestEffort",
            "hostIP": "10.0.0.12",
            "hostIPs": [{"ip": "10.0.0.12"}],
            "startTime": ts(created + 1),
            "conditions": [
                pod_condition("PodReadyToStartContainers", "True", ts(created + 3)),
                pod_condition("Initialized", "True", ts(created + 1)),
                pod_condition("Ready", "True", ts(created + 5)),
                pod_condition("ContainersReady", "True", ts(created + 5)),
                pod_condition("PodScheduled", "True", ts(created)),
            ],
        },
    }


def _claim_info_missing(objects: Objects, builder: ClusterBuilder) -> Objects:
    first = _test_pod(builder, "test-pod-1", ["first-resource-claim"], -1490)
    second = _test_pod(builder, "test-pod-2", ["first-resource-claim", "second-resource-claim"], -690)
    first["status"].update(podIP="10.64.2.21", podIPs=[{"ip": "10.64.2.21"}])
    first["status"]["containerStatuses"] = [
        {
            "containerID": "containerd://" + builder.ids.hex(64, "container", "test-pod-1"),
            "image": "docker.io/library/busybox:latest",
            "imageID": "docker.io/library/busybox@sha256:" + builder.ids.hex(64, "image", "busybox"),
            "lastState": {},
            "name": "container",
            "ready": True,
            "restartCount": 0,
            "started": True,
            "state": {"running": {"startedAt": ts(-1485)}},
        }
    ]
    second["status"].update(phase="Pending", podIP="10.64.2.22", podIPs=[{"ip": "10.64.2.22"}])
    _not_ready(second, ts(-688), sandbox=True)
    second["status"]["conditions"][0]["lastTransitionTime"] = ts(-686)
    _waiting(second, "CreateContainerConfigError", CLAIM_INFO)
    objects += [
        _named_claim(builder, "first-resource-claim", "rbln0", [first, second]),
        _named_claim(builder, "second-resource-claim", "rbln1", [second]),
        first,
        second,
        _event(
            second,
            "Scheduled",
            f"Successfully assigned {PREPARE_NAMESPACE}/test-pod-2 to {PREPARE_NODE}",
            count=1,
            first=-690,
            last=-690,
            warning=False,
            component="default-scheduler",
        ),
        _event(second, "Failed", f"Error: {CLAIM_INFO}", count=13, first=-686, last=-41, host=PREPARE_NODE),
        _read_at(),
    ]
    return objects


# The kubelet of 1.33 wrote a missing DRA plugin as in https://github.com/kubernetes/kubernetes/issues/131957
# ("Failed to prepare dynamic resources: failed to get gRPC client for driver dra-1411.k8s.io: plugin
# name dra-1411.k8s.io not found in the list of registered DRA plugins"; 1.34 says "DRA driver X is not
# registered", the kubelet-plugin-oomkilled scenario). Here the node's kubelet is v1.33 (one minor older
# than the control plane, as the version skew policy allows) and the RBLN kubelet plugin on it
# crash-loops, as in https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/issues/814. A known cause.
NOT_IN_LIST = (
    f"Failed to prepare dynamic resources: failed to get gRPC client for driver {NPU_DRIVER}: "
    f"plugin name {NPU_DRIVER} not found in the list of registered DRA plugins"
)


def _plugin_not_in_list(objects: Objects, builder: ClusterBuilder) -> Objects:
    pod = _target(objects)
    node = pod["spec"]["nodeName"]
    _pending_on_node(pod, sandbox=False)
    _waiting(pod, "ContainerCreating")
    info = _node(objects, node)["status"]["nodeInfo"]
    info.update(kubeletVersion="v1.33.5", kubeProxyVersion="v1.33.5")
    crashing = plugin_pod(NPU_DRIVER, node, 0)
    name = crashing["metadata"]["name"]
    crashing["status"]["containerStatuses"] = [
        {
            "name": "rbln-dra-kubelet-plugin",
            "image": "rebellions/k8s-dra-driver-npu:v0.1.2",
            "imageID": "",
            "ready": False,
            "started": False,
            "restartCount": 11,
            "lastState": {
                "terminated": {
                    "exitCode": 1,
                    "reason": "Error",
                    "startedAt": ts(-420),
                    "finishedAt": ts(-418),
                }
            },
            "state": {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": "back-off 5m0s restarting failed container=rbln-dra-kubelet-plugin "
                    f"pod={name}_rbln-system",
                }
            },
        }
    ]
    other = next(
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "Node" and o["metadata"]["name"] not in (node, "cp-01")
    )
    objects += [crashing, plugin_pod(NPU_DRIVER, other, 3), plugin_pod(NIC_DRIVER, node, 1)]
    objects.append(
        _event(pod, "FailedPrepareDynamicResources", NOT_IN_LIST, count=19, first=-1500, last=-75, host=node)
    )
    objects.append(
        _event(
            crashing,
            "BackOff",
            f"Back-off restarting failed container rbln-dra-kubelet-plugin in pod {name}_rbln-system",
            count=44,
            first=-1520,
            last=-60,
            host=node,
        )
    )
    objects.append(_read_at())
    return objects


# ---------------------------------------------------------------------------------- sandbox


# https://github.com/projectcalico/calico/issues/8379 ("Failed to create pod sandbox: rpc error: code =
# Unknown desc = failed to setup network for sandbox "<id>": plugin type="calico" failed (add): error
# getting ClusterInformation: connection is unauthorized: Unauthorized", then "Pod sandbox changed, it
# will be killed and re-created."), https://github.com/projectcalico/calico/issues/9215 (same on k8s 1.31),
# https://github.com/projectcalico/calico/issues/5712 (after weeks of uptime: calico-node's token
# expired). The Pod's claims are prepared; the CNI ADD fails before containerd runs any NRI hook
# (containerd internal/cri/server/sandbox_run.go sets up the network first), so dranet is not involved.
def _calico(objects: Objects, builder: ClusterBuilder) -> Objects:
    pod = _target(objects)
    node = pod["spec"]["nodeName"]
    _pending_on_node(pod, sandbox=False)
    _waiting(pod, "ContainerCreating")
    sandbox = builder.ids.hex(64, "sandbox", pod["metadata"]["name"])
    message = (
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "
        f'"{sandbox}": plugin type="calico" failed (add): error getting ClusterInformation: '
        "connection is unauthorized: Unauthorized"
    )
    objects.append(_event(pod, "FailedCreatePodSandBox", message, count=37, first=-1750, last=-48, host=node))
    objects.append(
        _event(
            pod,
            "SandboxChanged",
            "Pod sandbox changed, it will be killed and re-created.",
            count=36,
            first=-1745,
            last=-44,
            warning=False,
            host=node,
        )
    )
    objects.append(_read_at())
    return objects


# ---------------------------------------------------------------------------------- running


# https://github.com/vllm-project/vllm/issues/52656 (a vLLM Deployment with an 8-GPU DRA ResourceClaim
# crashes, without a word in its log, once its KV cache offload to CPU RAM passes 64 GB) and
# https://github.com/vllm-project/vllm/issues/28923 ("Container is killed by Kubernetes when memory
# crosses the defined limit while model is loading"). The modelserver's 128Gi memory limit: the kernel
# OOM-kills it, the kubelet restarts it with back-off. Texts: the kubelet's OOMKilled/137 last state,
# CrashLoopBackOff "back-off 5m0s restarting failed container=%s pod=%s" and BackOff "Back-off restarting
# failed container %s in pod %s" (pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff).
def _oom_killed(objects: Objects, builder: ClusterBuilder) -> Objects:
    pod = _target(objects)
    meta = pod["metadata"]
    node = pod["spec"]["nodeName"]
    ref = f"{meta['name']}_{meta['namespace']}({meta['uid']})"
    state = pod["status"]["containerStatuses"][0]
    state.update(ready=False, started=False, restartCount=9)
    state["lastState"] = {
        "terminated": {
            "containerID": state["containerID"],
            "exitCode": 137,
            "reason": "OOMKilled",
            "startedAt": ts(-431),
            "finishedAt": ts(-262),
        }
    }
    state["state"] = {
        "waiting": {
            "reason": "CrashLoopBackOff",
            "message": f"back-off 5m0s restarting failed container={CONTAINER} pod={ref}",
        }
    }
    conditions = {c["type"]: c for c in pod["status"]["conditions"]}
    for kind in ("Ready", "ContainersReady"):
        conditions[kind].update(
            status="False", reason="ContainersNotReady", message=UNREADY, lastTransitionTime=ts(-262)
        )
    objects.append(
        _event(
            pod,
            "BackOff",
            f"Back-off restarting failed container {CONTAINER} in pod {ref}",
            count=58,
            first=-9000,
            last=-40,
            host=node,
        )
    )
    objects.append(_read_at())
    return objects


# https://github.com/kubernetes/kubernetes/issues/129402 ("DRA: Pod termination is stuck when DRA Driver is
# stopped"; a maintainer: "This is indeed intentional. The kubelet cannot distinguish between "DRA driver
# is permanently gone" and "only temporarily not available""), https://github.com/kubernetes/website/issues/51012
# ("a pod will be stuck in Terminating for as long as its NodeUnprepareResources call has not been
# fulfilled"), https://github.com/NVIDIA/k8s-driver-manager/pull/203 (draining a node's DRA kubelet plugin
# while a workload still holds a claim "prevent[s] a remaining DRA workload from becoming stuck in
# termination"). The decode Pod was deleted two hours before the read, after the RBLN kubelet plugin had
# left its node: the kubelet stopped the container (exit 143, phase Failed, kubelet_pods.go getPhase for a
# terminal Pod) and retries NodeUnprepareResources; the claim controller deallocated and deleted the
# generated claim of the terminal Pod. Its events have expired (the event TTL is one hour).
def _terminating(objects: Objects, builder: ClusterBuilder) -> Objects:
    pod = _target(objects)
    node = pod["spec"]["nodeName"]
    deleted = -7200
    meta = pod["metadata"]
    meta["deletionTimestamp"] = ts(deleted)
    meta["deletionGracePeriodSeconds"] = 30
    status = pod["status"]
    status["phase"] = "Failed"
    state = status["containerStatuses"][0]
    started = state["state"]["running"]["startedAt"]
    state.update(ready=False, started=False)
    state["state"] = {
        "terminated": {
            "containerID": state["containerID"],
            "exitCode": 143,
            "reason": "Error",
            "startedAt": started,
            "finishedAt": ts(deleted + 9),
        }
    }
    _not_ready(pod, ts(deleted + 10), sandbox=False)
    _drop(objects, _claim_of(objects, pod))
    other = next(
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "Node" and o["metadata"]["name"] not in (node, "cp-01")
    )
    # the RBLN kubelet plugin runs on the other NPU node only; dranet on both
    objects += [
        plugin_pod(NPU_DRIVER, other, 3),
        plugin_pod(NIC_DRIVER, node, 1),
        plugin_pod(NIC_DRIVER, other, 4),
    ]
    objects.append(_read_at())
    return objects


# ---------------------------------------------------------------------------------- devices


# https://github.com/kubernetes-sigs/dranet/issues/51 ("DRANet reports wrong RDMA capability after
# installing OFED drivers via network-operator": `dra.net/rdma: {bool: true}` before, `{bool: false}`
# after, on "ConnectX Family mlx5Gen Virtual Function" NICs of "Mellanox Technologies"). The claim does not
# select on dra.net/rdma, so it allocates; dranet then finds no RDMA device for the NICs and moves only
# their netdevs (kubernetes-sigs/dranet pkg/driver/nri_hooks.go: runPodSandbox moves the RDMA link and
# createContainer injects the uverbs char devices only from the RDMA device prepare found for the NIC,
# config.RDMADevice), so in exclusive RDMA netns mode the Pod has its two NICs and no RDMA device. The
# probe's output is PROBE_SCRIPT's format (exec_probe.format_probe_output); pod-devices' checks see a
# non-RDMA NIC that arrived, and nothing to report.
MLX_ATTRIBUTES = {
    "dra.net/pciDevice": {"string": "ConnectX Family mlx5Gen Virtual Function"},
    "dra.net/pciVendor": {"string": "Mellanox Technologies"},
    "dra.net/rdma": {"bool": False},
}


def _rdma_not_published(objects: Objects, builder: ClusterBuilder) -> Objects:
    pod = _target(objects)
    node = pod["spec"]["nodeName"]
    claim = _claim_of(objects, pod)
    nics = [
        r["device"] for r in claim["status"]["allocation"]["devices"]["results"] if r["driver"] == NIC_DRIVER
    ]
    npus = [
        r["device"] for r in claim["status"]["allocation"]["devices"]["results"] if r["driver"] == NPU_DRIVER
    ]
    interfaces = [("eth0", "up", "1500", "")]
    for obj in objects:
        if obj["kind"] != "ResourceSlice" or obj["spec"].get("nodeName") != node:
            continue
        if obj["spec"]["driver"] != NIC_DRIVER:
            continue
        for device in obj["spec"]["devices"]:
            attributes = device["attributes"]
            attributes.pop("dra.net/rdmaDevice", None)  # current dranet publishes none (pod_devices_cases)
            if device["name"] in nics:
                attributes.update(copy.deepcopy(MLX_ATTRIBUTES))
                interfaces.append(
                    (
                        attributes["dra.net/ifName"]["string"],
                        "up",
                        str(attributes["dra.net/mtu"]["int"]),
                        attributes["dra.net/pciAddress"]["string"],
                    )
                )
    rds = ["rblnfs0"] if _node(objects, node)["metadata"]["labels"].get(RDS_LABEL) == "true" else []
    stdout = format_probe_output(
        interfaces=interfaces,
        npus=npus,
        rsd=["rsd0"] if len(npus) > 1 else [],
        rds=rds,
        netns="N",
    )
    objects[:] = [
        o for o in objects if not (o["kind"] == "ExecCapture" and o["metadata"]["name"] == TARGET[1])
    ]
    objects.append(
        {
            "apiVersion": PLUGIN_API,
            "kind": "ExecCapture",
            "metadata": {"name": TARGET[1], "namespace": TARGET[0]},
            "container": CONTAINER,
            "command": list(PROBE_COMMAND),
            "stdout": stdout,
            "stderr": "",
            "exitCode": 0,
        }
    )
    objects.append(_read_at())
    return objects


# ---------------------------------------------------------------------------------- the list


def _scenario(
    name: str,
    description: str,
    edit: Any,
    *,
    stage: str,
    recognised: bool = False,
    must: set[str] | None = None,
    must_not: set[str] | frozenset[str] = frozenset(),
    pending_pod: tuple[str, str] = TARGET,
    knobs: Knobs = KNOBS,
) -> Scenario:
    return edited_scenario(
        name,
        description,
        edit,
        must=must if must is not None else {"cause-not-recognised"},
        must_not=set(NODE_MUST_NOT | must_not),
        pending_pod=pending_pod,
        knobs=knobs,
        stage=stage,
        recognised=recognised,
    )


SCENARIOS: list[Scenario] = [
    _scenario(
        "node-admission-node-affinity",
        "After the kubelet on npu-node-01 restarted, it re-admitted the running decode Pod before it had "
        "the Node's labels and rejected it: phase Failed, reason NodeAffinity, `Pod was rejected: "
        "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector`; the claim "
        "controller deleted its claim, and the ReplicaSet's replacement runs elsewhere "
        "(https://github.com/kubernetes/kubernetes/issues/100467, "
        "https://github.com/kubernetes-sigs/node-feature-discovery/issues/1752).",
        _node_affinity,
        stage="admitted",
        must_not={"nri-sandbox-failed", "kubelet-prepare-failed", "rds-label-missing"},
        knobs=TWO_DECODE,
    ),
    _scenario(
        "node-admission-rejected-loop",
        "A rollout asks for the NPUs as the implicit extended resource "
        "deviceclass.resource.kubernetes.io/npu.rebellions.ai: the scheduler allocates them and binds "
        "each Pod to npu-node-02, whose kubelet rejects it with "
        "OutOfdeviceclass.resource.kubernetes.io/npu.rebellions.ai "
        "(https://github.com/kubernetes/kubernetes/issues/135667), and the ReplicaSet creates another "
        "Pod every few seconds (https://github.com/kubernetes/kubernetes/issues/108152).",
        _rejected_loop,
        stage="admitted",
        must_not={"kubelet-prepare-failed", "nri-sandbox-failed"},
        pending_pod=LOOP_TARGET,
    ),
    _scenario(
        "node-prepare-claim-info-missing",
        "test-pod-2 uses first-resource-claim, already prepared for test-pod-1 on the node, and "
        "second-resource-claim: the v1.34 kubelet stops at the prepared claim, never prepares the "
        "second, and the container waits in CreateContainerConfigError `internal error: unable to get "
        "claim info for ResourceClaim second-resource-claim` "
        "(https://github.com/kubernetes/kubernetes/issues/135901).",
        _claim_info_missing,
        stage="prepared",
        must_not={"nri-sandbox-failed", "claim-reserved-for-full", "shared-claim-node-unusable"},
        pending_pod=(PREPARE_NAMESPACE, "test-pod-2"),
    ),
    _scenario(
        "node-prepare-plugin-not-in-list",
        "The RBLN DRA kubelet plugin on npu-node-01 crash-loops; the node's v1.33 kubelet says `failed "
        "to get gRPC client for driver npu.rebellions.ai: plugin name npu.rebellions.ai not found in the "
        "list of registered DRA plugins` (https://github.com/kubernetes/kubernetes/issues/131957).",
        _plugin_not_in_list,
        stage="prepared",
        recognised=True,
        must={"kubelet-prepare-failed"},
        must_not={"nri-sandbox-failed"},
    ),
    _scenario(
        "node-sandbox-cni-unauthorized",
        "The decode Pod's claims are prepared, but Calico's CNI ADD fails every sandbox with `error "
        "getting ClusterInformation: connection is unauthorized: Unauthorized` "
        "(https://github.com/projectcalico/calico/issues/8379); dranet's NRI hook never runs.",
        _calico,
        stage="sandbox",
        must_not={"nri-sandbox-failed", "kubelet-prepare-failed"},
    ),
    _scenario(
        "node-running-oom-killed",
        "The decode Pod's modelserver is OOMKilled (exit 137) at its 128Gi memory limit and restarts in "
        "CrashLoopBackOff; no log was read and none names memlock "
        "(https://github.com/vllm-project/vllm/issues/52656, "
        "https://github.com/vllm-project/vllm/issues/28923).",
        _oom_killed,
        stage="running",
        must_not={"memlock-limit", "kubelet-prepare-failed", "nri-sandbox-failed"},
    ),
    _scenario(
        "node-terminating-driver-gone",
        "The decode Pod was deleted two hours before the read and is still there: its container exited, "
        "but the RBLN DRA kubelet plugin no longer runs on npu-node-01, so the kubelet cannot call "
        "NodeUnprepareResources and never lets it go "
        "(https://github.com/kubernetes/kubernetes/issues/129402).",
        _terminating,
        stage="running",
        must_not={"claim-being-deleted", "nri-sandbox-failed", "memlock-limit"},
    ),
    _scenario(
        "node-devices-rdma-not-published",
        "The decode Pod runs with its two NICs but no RDMA device: dranet publishes dra.net/rdma false "
        "for them after the NIC driver stack changed under it, so it moved only the netdevs "
        "(https://github.com/kubernetes-sigs/dranet/issues/51); pod-devices has nothing to report.",
        _rdma_not_published,
        stage="devices",
        must_not={"memlock-limit", "kubelet-prepare-failed", "nri-sandbox-failed"},
        knobs=KNOBS.replace(captures=True),
    ),
]
