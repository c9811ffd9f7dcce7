"""After scheduling: the Pod is bound and its claims are allocated, but the node cannot start it.

Three things stand between an allocated claim and a running container, each with its own text:
- the kubelet calls the driver's DRA kubelet plugin (NodePrepareResources). A plugin that never
  registered (its DaemonSet Pod on the node crash-loops, was OOMKilled, or is not there) gives
  `DRA driver X is not registered`; a plugin that fails gives `NodePrepareResources failed for
  ResourceClaim ...: <error>` (FailedPrepareDynamicResources);
- the container runtime resolves the CDI devices the plugin returned. After a node reboot the
  per-claim CDI specs under the tmpfs /var/run/cdi are gone while the driver's checkpoint still
  calls the claim prepared: `unresolvable CDI devices ...` (kubernetes/kubernetes#141433);
- the runtime runs the NRI hooks: dranet's RunPodSandbox moves the claimed NICs into the Pod's
  network namespace and refuses a hostNetwork Pod (`RunPodSandbox pod ns/name using host network
  can not claim host devices`, kubernetes-sigs/dranet pkg/driver/nri_hooks.go), which containerd
  reports as `NRI RunPodSandbox failed: ...` in FailedCreatePodSandBox.

The first two are cases of `kubelet-prepare-failed` (its rule in rules/scheduler.py asks
`prepare_case` here); the NRI hook is `nri-sandbox-failed`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.domain import KUBELET_PLUGINS, NIC_DRIVER, NPU_DRIVER, plugin_driver
from kubectl_rbln.dra.model import ContainerState, Event, Pod
from kubectl_rbln.dra.quantity import parse_quantity

HOST_NETWORK_ERROR = "using host network can not claim host devices"
_NRI = re.compile(r"NRI (?P<hook>RunPodSandbox|CreateContainer) failed: (?P<error>.+)", re.DOTALL)
_DRANET_HOOK = re.compile(r"RunPodSandbox pod \S+ using host network|error moving (?:network|RDMA) device")
_SANDBOX_REASONS = ("FailedCreatePodSandBox", "Failed", "CreateContainerError", "FailedSync")
_NOT_REGISTERED = re.compile(
    r"DRA driver \"?(?P<driver>[a-z0-9.-]+)\"? is not registered"
    r"|plugin name (?P<plugin>[a-z0-9.-]+) not found in the list of registered DRA plugins"
)
_PREPARE_ERROR = re.compile(
    r"NodePrepareResources failed for (?:ResourceClaim|claim) (?P<claim>[^\s:]+):\s*(?P<error>.+)", re.DOTALL
)
_CDI = re.compile(r"unresolvable CDI devices? (?P<devices>.+?)(?::\s*unknown)?$", re.DOTALL)
MAX_ERROR = 400


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 3] + "..."


def allocated_drivers(ctx: PodContext) -> dict[str, list[str]]:
    """driver -> the Pod's claims (names) holding devices of it."""
    drivers: dict[str, list[str]] = {}
    for claim in ctx.claims:
        allocation = claim.claim.allocation if claim.claim is not None else None
        for result in allocation.results if allocation is not None else []:
            names = drivers.setdefault(result.driver, [])
            if claim.claim is not None and claim.claim.name not in names:
                names.append(claim.claim.name)
    return drivers


def _devices_of(ctx: PodContext, driver: str) -> list[str]:
    found = []
    for claim in ctx.claims:
        allocation = claim.claim.allocation if claim.claim is not None else None
        for result in allocation.results if allocation is not None else []:
            if result.driver == driver:
                found.append(f"{result.pool}/{result.device}")
    return found


# ------------------------------------------------------------------ the driver's kubelet plugin Pod


def plugin_pods(ctx: PodContext, driver: str) -> list[Pod]:
    """Every kubelet plugin Pod of `driver` the snapshot holds (any node)."""
    return [p for p in ctx.snapshot.pods if plugin_driver(p.name, p.labels) == driver]


def _troubled(state: ContainerState) -> bool:
    return (
        state.restart_count > 0
        or state.reason in ("CrashLoopBackOff", "Error", "OOMKilled")
        or state.last_reason == "OOMKilled"
        or (state.state == "terminated" and state.reason != "Completed")
    )


def _plugin_values(
    ctx: PodContext, driver: str, node: str
) -> tuple[str | None, dict[str, Any], dict[str, Any]]:
    """(case, values, evidence) from the driver's kubelet plugin Pod on `node`."""
    plugin = KUBELET_PLUGINS[driver]
    values: dict[str, Any] = {
        "driver": driver,
        "driver_namespace": plugin.namespace,
        "plugin_label": plugin.label,
        "npu_operator": driver == NPU_DRIVER,
    }
    pods = plugin_pods(ctx, driver)
    here = [p for p in pods if p.node_name == node]
    if not here:
        if pods:  # the plugin's Pods were read: the DaemonSet runs none on this node
            others = sorted({p.node_name or "" for p in pods} - {""})
            return "plugin-missing", values, {"kubeletPluginPods": [p.key for p in pods], "onNodes": others}
        problem = ctx.snapshot.problem_for("Pod")
        return "not-registered", values, {"kubeletPluginPods": problem.message if problem else "not read"}
    pod = here[0]
    states = [s for s in pod.container_states if _troubled(s)]
    values.update(
        driver_pod=pod.name, driver_namespace=pod.namespace, daemonset=pod.owner_name or plugin.name_prefix
    )
    evidence: dict[str, Any] = {"kubeletPluginPod": pod.key, "phase": pod.phase}
    if not states:
        return "not-registered", values, evidence
    state = states[0]
    oom = state.last_reason == "OOMKilled" or state.reason == "OOMKilled"
    values.update(_memory_values(ctx, pod, state.name, oom))
    values.update(
        container=state.name,
        restarts=state.restart_count,
        reason=state.reason or state.state or "restarting",
        last_reason=state.last_reason or state.reason or "Error",
        exit_code=state.last_exit_code if state.last_exit_code is not None else "?",
        oom=oom,
    )
    evidence.update(
        container=state.name,
        restarts=state.restart_count,
        state=state.reason or state.state,
        lastState={"reason": state.last_reason, "exitCode": state.last_exit_code},
    )
    logs = [
        line.strip()
        for log in ctx.snapshot.logs
        if log.namespace == pod.namespace and log.pod == pod.name and log.container == state.name
        for line in log.log.splitlines()
        if line.strip()
    ]
    if logs:
        evidence["previousLog"] = logs[-3:]
    plugin_events = [
        f"{e.reason}: {e.message}"
        for e in ctx.snapshot.events
        if e.involved_name == pod.name and e.type == "Warning"
    ]
    if plugin_events:
        evidence["kubeletPluginEvents"] = plugin_events[:3]
    return "plugin-crashing", values, evidence


MEBI = 2**20


def raised_memory(limit: str) -> str:
    """Twice `limit`, in Mi (a plugin OOMKilled at its limit needs more; twice is a first step): "" when
    there is no limit to raise or it does not parse."""
    try:
        value = parse_quantity(limit) if limit else 0
    except ValueError:
        return ""
    return f"{-(-int(value * 2) // MEBI)}Mi" if value > 0 else ""


def _policy_of(ctx: PodContext, pod: Pod) -> str:
    """The RBLNClusterPolicy that owns the plugin's DaemonSet (its ownerReference), "" when not read."""
    for workload in ctx.snapshot.workloads:
        if (workload.kind, workload.namespace, workload.name) == ("DaemonSet", pod.namespace, pod.owner_name):
            return workload.owner_name if workload.owner_kind == "RBLNClusterPolicy" else ""
    return ""


def _memory_values(ctx: PodContext, pod: Pod, container: str, oom: bool) -> dict[str, Any]:
    """What an OOMKilled plugin's fix sets: the memory limit now (`memory_limit`), twice it (`memory`),
    and whether the fix can patch it as printed (`patch_policy`: the RBLNClusterPolicy is known;
    `patch_daemonset`: another driver's DaemonSet)."""
    spec = next((c for c in pod.containers if c.name == container), None)
    limit = (spec.limits.get("memory") if spec is not None else "") or ""
    memory = raised_memory(limit) if oom else ""
    policy = _policy_of(ctx, pod) if memory else ""
    npu = plugin_driver(pod.name, pod.labels) == NPU_DRIVER
    return {
        "memory_limit": limit,
        "memory": memory,
        "policy": policy,
        "patch_policy": bool(memory and policy and npu),
        "patch_daemonset": bool(memory and pod.owner_kind == "DaemonSet" and pod.owner_name and not npu),
    }


# ------------------------------------------------------------------ kubelet-prepare-failed's cases


def _plugin_pod_values(ctx: PodContext, driver: str, node: str) -> dict[str, Any]:
    """Where `driver`'s kubelet plugin runs, and its Pod on `node` (`driver_pod`: "" when not read)."""
    plugin = KUBELET_PLUGINS[driver]
    here = [p for p in plugin_pods(ctx, driver) if p.node_name == node]
    return {
        "driver_namespace": here[0].namespace if here else plugin.namespace,
        "plugin_label": plugin.label,
        "driver_pod": here[0].name if here else "",
    }


def _cdi_driver(ctx: PodContext, devices: list[str]) -> str | None:
    """The driver a CDI device name belongs to (its vendor ends with the driver's name)."""
    for device in devices:
        vendor = device.split("/", 1)[0]
        for driver in KUBELET_PLUGINS:
            if vendor == driver or vendor.endswith("." + driver):
                return driver
    held = [d for d in allocated_drivers(ctx) if d in KUBELET_PLUGINS and d != NIC_DRIVER]
    return held[0] if held else None


def prepare_case(
    ctx: PodContext, event: Event, fields: dict[str, str]
) -> tuple[str | None, dict[str, Any], dict[str, Any]]:
    """What a kubelet preparation failure is: (case, extra values, extra evidence); (None, {}, {}) when
    the text says nothing more specific than the generic words."""
    text = " ".join((event.message or "").split())
    node = ctx.pod.node_name or "<node>"
    cdi = _CDI.search(text)
    if cdi:
        devices = [d.strip().rstrip(":") for d in cdi.group("devices").split(",") if d.strip()]
        driver = _cdi_driver(ctx, devices)
        values: dict[str, Any] = {"cdi_devices": devices, "driver": driver or "<driver>"}
        evidence: dict[str, Any] = {"unresolvableCDIDevices": devices}
        if driver is not None:
            values.update(_plugin_pod_values(ctx, driver, node))
            if values["driver_pod"]:
                evidence["kubeletPluginPod"] = f"{values['driver_namespace']}/{values['driver_pod']}"
            return "cdi-missing", values, evidence
        return None, {}, {}
    registered = _NOT_REGISTERED.search(text)
    if registered:
        driver = registered.group("driver") or registered.group("plugin") or fields.get("driver", "")
        if driver in KUBELET_PLUGINS:
            return _plugin_values(ctx, driver, node)
        return None, {}, {}
    prepare = _PREPARE_ERROR.search(text)
    if prepare:
        claim = prepare.group("claim").split("/")[-1]
        drivers = _claim_drivers(ctx, claim) or ([fields["driver"]] if fields.get("driver") else [])
        values = {
            "claim": claim,
            "error": _short(prepare.group("error")),
            "driver": ", ".join(drivers) or "<driver>",
        }
        evidence = {"claim": f"{ctx.pod.namespace}/{claim}", "drivers": drivers}
        first = drivers[0] if drivers else ""
        if first in KUBELET_PLUGINS:
            values.update(_plugin_pod_values(ctx, first, node))
            return "prepare-error", values, evidence
        return None, {}, {}
    return None, {}, {}


def _claim_drivers(ctx: PodContext, name: str) -> list[str]:
    for claim in ctx.claims:
        if claim.claim is not None and claim.claim.name == name and claim.claim.allocation is not None:
            return sorted({r.driver for r in claim.claim.allocation.results})
    found = ctx.snapshot.claim(ctx.pod.namespace, name)
    if found is not None and found.allocation is not None:
        return sorted({r.driver for r in found.allocation.results})
    return []


def container_errors(ctx: PodContext) -> list[Event]:
    """The kubelet's container errors kept in the Pod's status (they outlive the events)."""
    pod = ctx.pod
    return [
        Event(pod.namespace, "Pod", pod.name, pod.namespace, state.reason, state.message, "Warning", 1)
        for state in pod.container_states
        if state.state == "waiting" and state.message and state.reason.endswith("Error")
    ]


def plugin_down(ctx: PodContext) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """No event left, but the Pod is bound and waits while a driver it holds devices of has its kubelet
    plugin Pod on that node crash-looping: (case, values, evidence) for kubelet-prepare-failed."""
    pod = ctx.pod
    if not pod.node_name or pod.phase != "Pending":
        return
    for driver in sorted(allocated_drivers(ctx)):
        if driver not in KUBELET_PLUGINS:
            continue
        case, more, evidence = _plugin_values(ctx, driver, pod.node_name)
        if case == "plugin-crashing":
            message = (
                f"the kubelet plugin of {driver} on {pod.node_name} is not running (no kubelet event left)"
            )
            yield case, ctx.values(message=message, node=pod.node_name, **more), evidence


# ------------------------------------------------------------------ nri-sandbox-failed


def _nri_error(event: Event) -> tuple[str, str] | None:
    """(hook, error) of a sandbox failure an NRI plugin caused, or None."""
    if event.reason not in _SANDBOX_REASONS:
        return None
    text = " ".join((event.message or "").split())
    match = _NRI.search(text)
    if match:
        return match.group("hook"), match.group("error")
    if _DRANET_HOOK.search(text):
        return "RunPodSandbox", text
    return None


@rule("after-scheduling.nri-sandbox", emits=("nri-sandbox-failed",))
def nri_sandbox_failed(ctx: PodContext) -> Iterator[Finding]:
    """dranet's NRI hook refused the sandbox: from the runtime's event, or before it, from a hostNetwork
    Pod that holds dranet NICs (dranet refuses every such Pod)."""
    pod = ctx.pod
    if not pod.node_name:
        return
    refused = next(((e, found) for e in ctx.events if (found := _nri_error(e)) is not None), None)
    if refused is None and not (pod.host_network and pod.phase == "Pending"):
        return  # no runtime event and no waiting hostNetwork Pod: nothing to gather (most Pods)
    claims = allocated_drivers(ctx).get(NIC_DRIVER, [])
    base = {
        "node": pod.node_name,
        "driver": NIC_DRIVER,
        **_plugin_pod_values(ctx, NIC_DRIVER, pod.node_name),
        "claims": claims,
        "devices": _devices_of(ctx, NIC_DRIVER),
    }
    if refused is not None:
        event, (hook, error) = refused
        host = HOST_NETWORK_ERROR in error or (pod.host_network and bool(claims))
        evidence = {
            "event": f"{event.reason}: {event.message}",
            "count": event.count,
            "hook": hook,
            "hostNetwork": pod.host_network,
        }
        values = ctx.values(**base, error=_short(error))
        yield Finding("nri-sandbox-failed", values, evidence, case="host-network" if host else None)
        return
    if pod.host_network and claims and pod.phase == "Pending":
        evidence = {"spec.hostNetwork": True, "claims": claims, "devices": base["devices"]}
        values = ctx.values(**base, error=f"RunPodSandbox pod {pod.key} {HOST_NETWORK_ERROR}")
        yield Finding("nri-sandbox-failed", values, evidence, case="host-network")
