"""After-scheduling scenarios, each from a public upstream report: the Pod is bound, its claims are
allocated, and the node cannot start it (kubelet preparation, CDI, dranet's NRI hook).

Each starts from the reference cluster with one decode Pod Running, then turns that Pod back into
what `kubectl get pod -o json` shows on a node that cannot start it: Pending, PodScheduled True,
the container waiting in ContainerCreating (or CreateContainerError), with the kubelet's events.
The driver's DaemonSet Pods are added where the report needs them, as `dump` reads them.
"""

from __future__ import annotations

import copy
import zlib
from collections.abc import Callable
from typing import Any

from kubectl_rbln.domain import NIC_DRIVER, NPU_DRIVER
from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.ids import Ids
from testing.synthetic.scenario_kit import DEVICE_BLAME, SEED, Scenario

KNOBS = Knobs(prefill_running=1, decode_running=1, prefill_pending=0, decode_pending=0, captures=False)
STAMP = "2026-09-14T06:00:00Z"
MUST_NOT = DEVICE_BLAME | {"claim-not-allocated", "not-device-related", "claim-not-created"}

Edit = Callable[[list[dict[str, Any]], dict[str, Any]], None]


def _target(objects: list[dict[str, Any]]) -> dict[str, Any]:
    namespace, name = ClusterBuilder(SEED, "v1", KNOBS).target_pod()
    return next(
        o
        for o in objects
        if o["kind"] == "Pod" and o["metadata"]["name"] == name and o["metadata"]["namespace"] == namespace
    )


def _not_started(pod: dict[str, Any], reason: str = "ContainerCreating", message: str = "") -> None:
    status = pod["status"]
    status["phase"] = "Pending"
    for key in ("podIP", "podIPs", "startTime"):
        status.pop(key, None)
    status["conditions"] = [
        c if c["type"] in ("PodScheduled", "Initialized") else {**c, "status": "False"}
        for c in status.get("conditions", [])
    ]
    waiting = {"reason": reason, **({"message": message} if message else {})}
    status["containerStatuses"] = [
        {
            "image": "rebellions/rbln-modelserver:0.9.1",
            "imageID": "",
            "lastState": {},
            "name": "modelserver",
            "ready": False,
            "restartCount": 0,
            "started": False,
            "state": {"waiting": waiting},
        }
    ]


def event(pod: dict[str, Any], reason: str, message: str, count: int, **more: Any) -> dict[str, Any]:
    meta = pod["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            # a stable suffix (str hash() is salted per process): bundles and docs stay reproducible
            "name": f"{meta['name']}.{zlib.crc32(reason.encode()):x}",
            "namespace": meta["namespace"],
        },
        "involvedObject": {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": meta["name"],
            "namespace": meta["namespace"],
            "uid": meta.get("uid", ""),
        },
        "reason": reason,
        "message": message,
        "type": "Warning",
        "count": count,
        "firstTimestamp": STAMP,
        "lastTimestamp": STAMP,
        "source": {"component": "kubelet", "host": pod["spec"].get("nodeName", "")},
        **more,
    }


def _plugin_set(driver: str) -> tuple[str, str, dict[str, str]]:
    """(namespace, DaemonSet name, Pod labels) of a driver's kubelet plugin."""
    if driver == NPU_DRIVER:
        return "rbln-system", "rbln-dra-kubelet-plugin", {"app": "rbln-dra-kubelet-plugin"}
    return "kube-system", "dranet", {"app": "dranet", "k8s-app": "dranet", "tier": "node"}


def _plugin_set_uid(namespace: str, daemonset: str) -> str:
    return Ids(SEED).uid("DaemonSet", namespace, daemonset)


def plugin_pod(driver: str, node: str, index: int, *, oom_restarts: int = 0) -> dict[str, Any]:
    """A DRA kubelet plugin DaemonSet Pod as the RBLN NPU Operator / dranet's install.yaml create it."""
    namespace, daemonset, labels = _plugin_set(driver)
    name = f"{daemonset}-{'xk2lp9qmzt'[index : index + 5]}"
    status: dict[str, Any] = {"phase": "Running", "hostIP": "10.0.0.11"}
    if oom_restarts:
        status["containerStatuses"] = [
            {
                "name": daemonset,
                "image": "rebellions/k8s-dra-driver-npu:v0.1.2",
                "imageID": "",
                "ready": False,
                "started": False,
                "restartCount": oom_restarts,
                "lastState": {
                    "terminated": {
                        "exitCode": 137,
                        "reason": "OOMKilled",
                        "startedAt": "2026-09-14T05:58:01Z",
                        "finishedAt": "2026-09-14T05:58:40Z",
                    }
                },
                "state": {
                    "waiting": {
                        "reason": "CrashLoopBackOff",
                        "message": f"back-off 5m0s restarting failed container={daemonset} "
                        f"pod={name}_{namespace}",
                    }
                },
            }
        ]
    else:
        status["containerStatuses"] = [
            {
                "name": daemonset,
                "image": "ghcr.io/google/dranet:stable",
                "imageID": "",
                "ready": True,
                "started": True,
                "restartCount": 0,
                "lastState": {},
                "state": {"running": {"startedAt": "2026-09-14T01:00:00Z"}},
            }
        ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "DaemonSet",
                    "name": daemonset,
                    "controller": True,
                    "uid": _plugin_set_uid(namespace, daemonset),
                }
            ],
        },
        "spec": {"nodeName": node, "hostNetwork": True, "containers": [{"name": daemonset, "image": "x"}]},
        "status": status,
    }


def plugin_daemonset(driver: str, pods: list[dict[str, Any]]) -> dict[str, Any]:
    """The driver's kubelet plugin DaemonSet, its status counted from `pods` (its Pods in the bundle)."""
    namespace, daemonset, labels = _plugin_set(driver)
    ready = sum(
        1
        for pod in pods
        if all(status.get("ready") for status in pod["status"].get("containerStatuses", [{}]))
    )
    counts = {
        "currentNumberScheduled": len(pods),
        "desiredNumberScheduled": len(pods),
        "numberAvailable": ready,
        "numberMisscheduled": 0,
        "numberReady": ready,
        "numberUnavailable": len(pods) - ready,
        "observedGeneration": 1,
        "updatedNumberScheduled": len(pods),
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": daemonset,
            "namespace": namespace,
            "generation": 1,
            "labels": dict(labels),
            "uid": _plugin_set_uid(namespace, daemonset),
            "creationTimestamp": "2026-09-13T06:00:00Z",
        },
        "spec": {
            "selector": {"matchLabels": {"app": labels["app"]}},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"hostNetwork": True, "containers": [{"name": daemonset, "image": "x"}]},
            },
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
        },
        # a zero count is left out, as the API writes it (omitempty); numberMisscheduled is always written
        "status": {k: v for k, v in counts.items() if v or k in ("numberMisscheduled",)},
    }


def _scenario(name: str, description: str, edit: Edit, must: set[str]) -> Scenario:
    def build(api_version: str) -> list[dict[str, Any]]:
        objects = ClusterBuilder(SEED, api_version, KNOBS).build()
        edit(objects, _target(objects))
        return copy.deepcopy(objects)

    return Scenario(
        name=name,
        description=description,
        build=build,
        pending_pod=ClusterBuilder(SEED, "v1", KNOBS).target_pod(),
        must=frozenset(must),
        must_not=frozenset(MUST_NOT),
        knobs=KNOBS,
    )


# https://github.com/kubernetes-sigs/dranet/blob/main/pkg/driver/nri_hooks.go (runPodSandbox) returns
# "RunPodSandbox pod %s/%s using host network can not claim host devices"; containerd wraps NRI errors as
# "NRI RunPodSandbox failed: %w" (internal/cri/server/sandbox_run.go). Reported in the field as
# "NRI RunPodSandbox failed: using host network can not claim host devices ... the Pod retries forever
# while holding the ResourceClaim"; the NRI timeout variant is https://github.com/kubernetes-sigs/dranet/issues/88
def _host_network(objects: list[dict[str, Any]], pod: dict[str, Any]) -> None:
    pod["spec"]["hostNetwork"] = True
    _not_started(pod)
    meta = pod["metadata"]
    message = (
        "Failed to create pod sandbox: rpc error: code = Unknown desc = NRI RunPodSandbox failed: "
        f"RunPodSandbox pod {meta['namespace']}/{meta['name']} using host network can not claim host devices"
    )
    objects.append(event(pod, "FailedCreatePodSandBox", message, 41))


# https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/issues/814 ("Failed to prepare dynamic resources:
# prepare dynamic resources: DRA driver compute-domain.nvidia.com is not registered") and
# https://github.com/kubernetes/kubernetes/issues/131957 (the plugin is not in the registered list): here
# the RBLN NPU Operator's kubelet plugin on the node was OOMKilled and crash-loops, so it never registers.
def _plugin_oom(objects: list[dict[str, Any]], pod: dict[str, Any]) -> None:
    _not_started(pod)
    node = pod["spec"]["nodeName"]
    other = next(
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "Node" and o["metadata"]["name"] != node and "npu" in o["metadata"]["name"]
    )
    message = (
        "Failed to prepare dynamic resources: prepare dynamic resources: "
        f"DRA driver {NPU_DRIVER} is not registered"
    )
    objects.append(event(pod, "FailedPrepareDynamicResources", message, 23))
    crashing = plugin_pod(NPU_DRIVER, node, 0, oom_restarts=9)
    npu_plugins = [crashing, plugin_pod(NPU_DRIVER, other, 3)]
    nic_plugins = [plugin_pod(NIC_DRIVER, node, 1)]
    objects += [*npu_plugins, *nic_plugins]
    objects += [plugin_daemonset(NPU_DRIVER, npu_plugins), plugin_daemonset(NIC_DRIVER, nic_plugins)]
    objects.append(
        {
            **event(
                crashing,
                "BackOff",
                f"Back-off restarting failed container rbln-dra-kubelet-plugin in pod "
                f"{crashing['metadata']['name']}_rbln-system",
                57,
            ),
        }
    )


# https://github.com/kubernetes-sigs/dranet/pull/221 (dranet's own prepare failure reaches the Pod as
# "Failed to prepare dynamic resources: prepare dynamic resources: NodePrepareResources failed for
# ResourceClaim ...: failed to get netlink to interface dummy0: Link not found") and
# https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/issues/1144 (same shape, another driver).
def _prepare_error(objects: list[dict[str, Any]], pod: dict[str, Any]) -> None:
    _not_started(pod)
    claim = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    message = (
        "Failed to prepare dynamic resources: prepare dynamic resources: NodePrepareResources failed for "
        f"ResourceClaim {claim}: failed to get netlink to interface ens7f0np0: Link not found"
    )
    objects.append(event(pod, "FailedPrepareDynamicResources", message, 14))


# https://github.com/kubernetes/kubernetes/issues/141433 (after a node reboot: "Error: failed to create
# containerd container: CDI device injection failed: unresolvable CDI devices
# k8s.gpu.example.com/gpu=<uid>-gpu-0"),
# https://github.com/kubernetes/kubernetes/issues/119850 (same after reboot). RBLN per-claim CDI devices are
# named k8s.npu.rebellions.ai/npu=<claimUID>-<device> (ecosystem-facts.md 2.3).
def _cdi_after_reboot(objects: list[dict[str, Any]], pod: dict[str, Any]) -> None:
    claim_name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    claim = next(o for o in objects if o["kind"] == "ResourceClaim" and o["metadata"]["name"] == claim_name)
    uid = claim["metadata"]["uid"]
    devices = [
        r["device"] for r in claim["status"]["allocation"]["devices"]["results"] if r["driver"] == NPU_DRIVER
    ]
    cdi = ", ".join(f"k8s.npu.rebellions.ai/npu={uid}-{d}" for d in devices[:2])
    message = (
        "Error: failed to create containerd container: CDI device injection failed: "
        f"unresolvable CDI devices {cdi}"
    )
    _not_started(pod, "CreateContainerError", message)
    objects.append(event(pod, "Failed", message, 33))


# node-prepare-error (_prepare_error) is not a SCENARIOS entry: only the kubelet's event says it, and every
# scenario must be found without events (tests/why/test_why_behaviour.py); tests/rules covers it.
SCENARIOS: list[Scenario] = [
    _scenario(
        "nri-host-network",
        "A decode Pod with hostNetwork: true claims dranet NICs; it is scheduled and allocated, but dranet's "
        "NRI RunPodSandbox hook refuses a hostNetwork Pod, so FailedCreatePodSandBox repeats.",
        _host_network,
        {"nri-sandbox-failed"},
    ),
    _scenario(
        "kubelet-plugin-oomkilled",
        "The RBLN NPU Operator's DRA kubelet plugin on the decode Pod's node was OOMKilled and crash-loops: "
        "the kubelet says DRA driver npu.rebellions.ai is not registered.",
        _plugin_oom,
        {"kubelet-prepare-failed"},
    ),
    _scenario(
        "cdi-missing-after-reboot",
        "After a node reboot the per-claim CDI specs under /var/run/cdi are gone: containerd cannot resolve "
        "the NPU claim's CDI devices and the container stays in CreateContainerError.",
        _cdi_after_reboot,
        {"kubelet-prepare-failed"},
    ),
]
