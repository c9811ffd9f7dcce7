"""ClusterBuilder: a whole synthetic cluster as the objects `kubectl get -o json` prints.

Why: tests, examples and benchmarks need clusters (Nodes, ResourceSlices, DeviceClasses,
ResourceClaimTemplates, Pods, ResourceClaims, Events, PodLogs, ExecCaptures, and the Pods' Deployments
and ReplicaSets, kube-scheduler's Lease, a ClusterInfo with the read time: owners.py) that look like
real dumps, in every resource.k8s.io shape, with one knob per failure mode (see `Knobs`).

The reference node follows the product documents: 2 NUMA nodes, 4 RBLN-CA25 NPUs and 2 Broadcom
RoCE NICs per NUMA node, plus a management NIC. Running Pods fill (node, NUMA) slots in order.
For each Pending Pod the builder also writes what the scheduler would have said (PodScheduled
condition, FailedScheduling event), decided by the recipes' feasibility check.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.cluster.exec_probe import PROBE_COMMAND, format_probe_output
from kubectl_rbln.domain import (
    IF_NAME_ATTR,
    NIC_CLASS,
    NIC_DRIVER,
    NIC_RESOURCE_PREFIX,
    NPU_CLASS,
    NPU_DRIVER,
    NPU_LABEL,
    NPU_RESOURCE_PREFIX,
    PCI_ADDRESS_ATTR,
    POD_CLAIM_NAME_ANNOTATION,
    RDS_LABEL,
    RECIPES,
)
from testing.synthetic.bundle import dumps_bundle, to_list, write_bundle, write_bundle_stream
from testing.synthetic.devices import Device, device_json, nic_devices, npu_devices
from testing.synthetic.fit_error import event_note, fit_error_message
from testing.synthetic.ids import Ids, k8s_minor, pod_net, ts
from testing.synthetic.knobs import API_VERSIONS, CONTROL_PLANE_TAINT, Knobs
from testing.synthetic.owners import Role, cluster_info, role_workloads, scheduler_lease
from testing.synthetic.recipes import (
    CelNoSuchKey,
    applied_manifest,
    claim_fits,
    recipe_spec,
    stored_spec,
    template_name,
)
from testing.synthetic.shapes import to_api_shape

__all__ = [
    "API_VERSIONS",
    "RECIPES",
    "ClusterBuilder",
    "Knobs",
    "build_cluster",
    "dumps_bundle",
    "fit_error_message",
    "recipe_spec",
    "to_api_shape",
    "to_list",
    "write_bundle",
    "write_bundle_stream",
]

MEMLOCK_LOG = (
    "INFO: starting modelserver (run mode: non-root, uid 2000)\n"
    "INFO: raising memlock limit to unlimited\n"
    "ERROR: failed to raise memlock limit (ulimit -l): Operation not permitted; "
    "RDMA is enabled (devices.rdma.enabled=true), exiting\n"
)


@dataclass
class _Outcome:
    """What the scheduler said about a Pending Pod (no _Outcome: it never tried, or the Pod fits)."""

    reason: str  # Unschedulable | SchedulerError
    message: str


@dataclass
class _PodPlan:
    component: str  # prefill | decode
    index: int
    running: bool
    name: str = ""
    node: str | None = None
    npus: list[Device] = field(default_factory=list)
    nics: list[Device] = field(default_factory=list)
    crash: bool = False


class ClusterBuilder:
    """Builds one synthetic cluster; `build()` returns the objects, `iter_objects()` streams them."""

    def __init__(
        self, seed: int = 0, api_version: str = "v1", knobs: Knobs | None = None, **overrides: Any
    ) -> None:
        if api_version not in API_VERSIONS:
            raise ValueError(
                f"unknown api_version {api_version!r}; expected one of {', '.join(API_VERSIONS)}"
            )
        self.seed = seed
        self.api_version = api_version
        self.knobs = (knobs or Knobs()).replace(**overrides) if overrides else (knobs or Knobs())
        if self.knobs.rct is not None and self.knobs.rct not in RECIPES:
            raise ValueError(f"unknown rct recipe {self.knobs.rct!r}")
        self.ids = Ids(seed)
        self._rv = 400000 + self.ids.num(0, 99999, "rv")
        width = max(2, len(str(self.knobs.npu_nodes)))
        self.npu_node_names = [f"npu-node-{i + 1:0{width}d}" for i in range(self.knobs.npu_nodes)]
        self.cp_node_name = "cp-01" if self.knobs.control_plane else None
        self._node_index = {name: i for i, name in enumerate(self.npu_node_names)}

    # ---- names that callers need without building

    def pod_name(self, component: str, index: int) -> str:
        """`<release>-<component>-<replicaset hash>-<5 chars>`, as a Deployment names its Pods."""
        release = self.knobs.release
        return (
            f"{release}-{component}-{self._rs_hash(component)}-{self.ids.suffix(5, 'pod', component, index)}"
        )

    def _rs_hash(self, component: str) -> str:
        return self.ids.suffix(10, "rs", self.knobs.release, component)

    def plans(self) -> list[_PodPlan]:
        """Pods in creation order: running prefill, running decode, then the Pending ones."""
        k = self.knobs
        plans = []
        counts = (
            ("prefill", k.prefill_running, True),
            ("decode", k.decode_running, True),
            ("prefill", k.prefill_pending, False),
            ("decode", k.decode_pending, False),
        )
        next_index = {"prefill": 0, "decode": 0}
        for component, count, running in counts:
            for _ in range(count):
                index = next_index[component]
                next_index[component] += 1
                plans.append(_PodPlan(component, index, running, name=self.pod_name(component, index)))
        return plans

    def pending_pods(self) -> list[tuple[str, str]]:
        return [(self.knobs.namespace, p.name) for p in self.plans() if not p.running]

    def running_pods(self) -> list[tuple[str, str]]:
        return [(self.knobs.namespace, p.name) for p in self.plans() if p.running]

    def target_pod(self) -> tuple[str, str]:
        """The Pod a scenario asks about: the first Pending decode (else prefill) Pod, else a crashing one."""
        plans = self.plans()
        crash_first = (
            [p for p in plans if p.running and p.component == "decode"] if self.knobs.memlock_crash else []
        )
        pending = [p for p in plans if not p.running]
        ordered = crash_first + [p for p in pending if p.component == "decode"] + pending
        ordered += [p for p in plans if p.running and p.component == "decode"] + plans
        if not ordered:
            raise ValueError("the cluster has no Pods")
        return (self.knobs.namespace, ordered[0].name)

    # ---- building

    def build(self) -> list[dict[str, Any]]:
        return list(self.iter_objects())

    def iter_objects(self) -> Iterator[dict[str, Any]]:
        """Objects in a stable order: cluster-scoped first, like `kubectl get` of several kinds."""
        k = self.knobs
        npus = {n: npu_devices(n, k, self.ids) for n in self.npu_node_names}
        nics = {n: nic_devices(n, i, k, self.ids) for i, n in enumerate(self.npu_node_names)}
        plans = self.plans()
        self._place_running(plans, npus, nics)

        if self.cp_node_name:
            yield self._node(self.cp_node_name, control_plane=True, plans=plans)
        for name in self.npu_node_names:
            yield self._node(name, control_plane=False, plans=plans)
        for obj in self._device_classes():
            yield to_api_shape(obj, self.api_version)
        for node in self.npu_node_names:
            for obj in self._slices(node, npus[node], nics[node]):
                yield to_api_shape(obj, self.api_version)
        uses_dra = k.pod_mode == "dra"
        if uses_dra and k.rct is not None:
            yield to_api_shape(self._template(), self.api_version)
        roles: dict[str, Role] = {}
        for plan in plans:
            outcome = None if plan.running else self._outcome(plan, plans, npus, nics)
            pod = self._pod(plan, outcome)
            self._count_in_role(roles, plan, pod)
            yield pod
            claim = self._claim(plan, pod) if uses_dra else None
            if claim is not None:
                yield to_api_shape(claim, self.api_version)
            yield from self._events(plan, pod, outcome)
            if plan.running and k.captures:
                yield from self._captures(plan)
        # after every other object, so that theirs keep the resourceVersions they had before these came
        for role in roles.values():
            yield from role_workloads(self._meta, self.ids, k.namespace, k.release, role)
        holder = self.cp_node_name or next(iter(self.npu_node_names), "control-plane")
        yield scheduler_lease(self._meta, self.ids, holder)
        yield cluster_info()

    def _count_in_role(self, roles: dict[str, Role], plan: _PodPlan, pod: dict[str, Any]) -> None:
        """The Pod in its role's ReplicaSet counts: ready when running and not crashing."""
        role = roles.get(plan.component)
        if role is None:
            replicaset = f"{self.knobs.release}-{plan.component}-{self._rs_hash(plan.component)}"
            role = roles[plan.component] = Role(plan.component, replicaset, copy.deepcopy(pod))
            role.first_created = self._pod_created(plan)
        created = self._pod_created(plan)
        role.first_created = min(role.first_created, created)
        role.replicas += 1
        if plan.running and not plan.crash:
            role.ready += 1
            return
        since = created + 240 if plan.running else created  # a crash: once its readiness failed
        if role.unavailable_since is None or since < role.unavailable_since:
            role.unavailable_since = since

    def _place_running(
        self, plans: list[_PodPlan], npus: dict[str, list[Device]], nics: dict[str, list[Device]]
    ) -> None:
        """Running Pods fill (node, NUMA) slots in order, each taking its devices from one NUMA node."""
        k = self.knobs
        spec = recipe_spec(k.rct or "numa-aligned", k) if k.pod_mode == "dra" else None
        npu_count = spec["requests"][0]["exactly"]["count"] if spec else 4
        nic_count = spec["requests"][1]["exactly"]["count"] if spec and len(spec["requests"]) > 1 else 0
        if k.pod_mode == "device-plugin":
            nic_count = 2
        slots = [(n, numa) for n in self.npu_node_names for numa in range(k.numa_per_node)]
        running = [p for p in plans if p.running]
        if len(running) > len(slots):
            raise ValueError(f"{len(running)} running Pods do not fit {len(slots)} NUMA slots")
        crash_pending = k.memlock_crash
        for plan, (node, numa) in zip(running, slots[: len(running)], strict=True):
            plan.node = node
            if k.pod_mode == "dra":
                plan.npus = [d for d in npus[node] if d.numa == numa][:npu_count]
                rdma = [d for d in nics[node] if d.numa == numa and not d.mgmt]
                plan.nics = rdma[:nic_count]
            if crash_pending and plan.component == "decode":
                plan.crash = True
                crash_pending = False

    def _taken(self, plans: list[_PodPlan]) -> set[tuple[str, str]]:
        return {(d.node, d.name) for p in plans for d in p.npus + p.nics}

    # ---- the scheduler's verdict

    def _outcome(
        self,
        plan: _PodPlan,
        plans: list[_PodPlan],
        npus: dict[str, list[Device]],
        nics: dict[str, list[Device]],
    ) -> _Outcome | None:
        k = self.knobs
        dra = k.pod_mode == "dra"
        if dra and (k.rct is None or not k.claim_created):
            return None  # PreEnqueue: "ResourceClaim not created yet"; no scheduling attempt, no event
        total = len(self.npu_node_names) + (1 if self.cp_node_name else 0)
        spec = stored_spec(k.rct, k) if dra and k.rct else None
        if spec is not None:
            classes = self._present_classes()
            for request in spec["requests"]:
                cls = request["exactly"]["deviceClassName"]
                if cls not in classes:
                    text = fit_error_message(
                        total, [], prefilter=f"request {request['name']}: device class {cls} does not exist"
                    )
                    return _Outcome("Unschedulable", text)
        taken = self._taken(plans)
        node_reasons: list[list[str]] = []
        preemption: list[str] = []
        if self.cp_node_name:
            node_reasons.append(["node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"])
            preemption.append("Preemption is not helpful for scheduling")
        claim = self._claim_name(plan)
        fits_somewhere = False
        for node in self.npu_node_names:
            if k.device_node_taint is not None:
                key, value, _effect = k.device_node_taint
                node_reasons.append([f"node(s) had untolerated taint {{{key}: {value}}}"])
                preemption.append("Preemption is not helpful for scheduling")
                continue
            if plan.component == "prefill" and k.prefill_rds_selector and not k.node_rds_label:
                node_reasons.append(["node(s) didn't match Pod's node affinity/selector"])
                preemption.append("Preemption is not helpful for scheduling")
                continue
            if not dra:
                used = sum(1 for p in plans if p.running and p.node == node)
                free_npu = (k.numa_per_node * k.npus_per_numa) - 4 * used
                free_nic = (k.numa_per_node * k.nics_per_numa) - 2 * used
                reasons = []
                if free_nic < 2:
                    reasons.append("Insufficient rdma/hca")
                if free_npu < 4:
                    reasons.append("Insufficient rebellions.ai/ATOM")
                if reasons:
                    node_reasons.append(reasons)
                    preemption.append("No preemption victims found for incoming pod")
                    continue
                fits_somewhere = True
                continue
            free_npus = [
                d for d in self._visible(node, NPU_DRIVER, npus[node]) if (node, d.name) not in taken
            ]
            free_nics = [
                d for d in self._visible(node, NIC_DRIVER, nics[node]) if (node, d.name) not in taken
            ]
            try:
                fits = claim_fits(free_npus, free_nics, spec or {}, k)
            except CelNoSuchKey as exc:
                text = (
                    f'running "DynamicResources" filter plugin: claim {k.namespace}/{claim}: '
                    f"selector #0: CEL runtime error: no such key: {exc.key}"
                )
                return _Outcome("SchedulerError", text)
            if fits:
                fits_somewhere = True
            else:
                node_reasons.append(["cannot allocate all claims"])
                preemption.append("Preemption is not helpful for scheduling")
        if fits_somewhere:
            return None  # schedulable: a snapshot taken before the scheduler got to it
        text = fit_error_message(
            total,
            node_reasons,
            dra_postfilter="still not schedulable" if dra else None,
            preemption_reasons=preemption,
        )
        return _Outcome("Unschedulable", text)

    def _visible(self, node: str, driver: str, devices: list[Device]) -> list[Device]:
        """Devices the allocator sees: none for missing or empty slices, or (1.35+) an incomplete pool."""
        k = self.knobs
        if driver == NPU_DRIVER and not k.dra_npu:
            return []
        if driver in k.drop_slices or driver in k.empty_slices:
            return []
        if driver in k.incomplete_pools and k8s_minor(k.kubernetes_version) >= 35:
            return []
        return devices

    def _present_classes(self) -> set[str]:
        k = self.knobs
        classes = {NPU_CLASS, NIC_CLASS} - set(k.drop_device_classes)
        if not k.dra_npu:
            classes.discard(NPU_CLASS)
        return classes

    # ---- cluster-scoped objects

    def _meta(
        self, kind: str, name: str, namespace: str | None = None, created: int = -86400 * 30
    ) -> dict[str, Any]:
        self._rv += 1
        meta: dict[str, Any] = {
            "creationTimestamp": ts(created),
            "name": name,
            "resourceVersion": str(self._rv),
            "uid": self.ids.uid(kind, namespace or "", name),
        }
        if namespace is not None:
            meta["namespace"] = namespace
        return meta

    def _node(self, name: str, *, control_plane: bool, plans: list[_PodPlan]) -> dict[str, Any]:
        k = self.knobs
        index = 0 if control_plane else self._node_index[name] + 1
        labels = {
            "beta.kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
        }
        cidr = f"{pod_net(index)}.0/24"
        spec: dict[str, Any] = {"podCIDR": cidr, "podCIDRs": [cidr]}
        allocatable = {
            "cpu": "190" if not control_plane else "15",
            "ephemeral-storage": "1699485328741" if not control_plane else "93478772582",
            "hugepages-1Gi": "0",
            "hugepages-2Mi": "0",
            "memory": "2110861712Ki" if not control_plane else "65326544Ki",
            "pods": "110",
        }
        if control_plane:
            labels["node-role.kubernetes.io/control-plane"] = ""
            labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
            spec["taints"] = [dict(CONTROL_PLANE_TAINT)]
        else:
            labels.update(
                {
                    "feature.node.kubernetes.io/pci-1eff.present": "true",
                    "rebellions.ai/npu.count": str(k.numa_per_node * k.npus_per_numa),
                    "rebellions.ai/npu.family": "ATOM",
                    NPU_LABEL: "true",
                    "rebellions.ai/npu.product": "RBLN-CA25",
                }
            )
            if k.node_rds_label:
                labels[RDS_LABEL] = "true"
            if k.device_node_taint is not None:
                key, value, effect = k.device_node_taint
                spec["taints"] = [{"effect": effect, "key": key, "value": value}]
            if k.device_plugin_allocatable or k.pod_mode == "device-plugin":
                allocatable[NPU_RESOURCE_PREFIX + "ATOM"] = str(k.numa_per_node * k.npus_per_numa)
                allocatable[NIC_RESOURCE_PREFIX + "hca"] = str(k.numa_per_node * k.nics_per_numa)
        capacity = dict(allocatable)
        capacity["cpu"] = "192" if not control_plane else "16"
        meta = self._meta("Node", name, created=-86400 * 60 + index * 600)
        meta["labels"] = labels
        meta["annotations"] = {
            "node.alpha.kubernetes.io/ttl": "0",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        }
        heartbeat = ts(-30 - index)
        conditions = [
            _node_condition(
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
                heartbeat,
            ),
            _node_condition(
                "DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", heartbeat
            ),
            _node_condition(
                "PIDPressure",
                "False",
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available",
                heartbeat,
            ),
            _node_condition("Ready", "True", "KubeletReady", "kubelet is posting ready status", heartbeat),
        ]
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": meta,
            "spec": spec,
            "status": {
                "addresses": [
                    {"address": f"10.0.{index // 250}.{index % 250 + 10}", "type": "InternalIP"},
                    {"address": name, "type": "Hostname"},
                ],
                "allocatable": allocatable,
                "capacity": capacity,
                "conditions": conditions,
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                "nodeInfo": {
                    "architecture": "amd64",
                    "bootID": self.ids.uid("boot", name),
                    "containerRuntimeVersion": "containerd://1.7.27",
                    "kernelVersion": "5.15.0-139-generic",
                    "kubeProxyVersion": k.kubernetes_version,
                    "kubeletVersion": k.kubernetes_version,
                    "machineID": self.ids.hex(32, "machine", name),
                    "operatingSystem": "linux",
                    "osImage": "Ubuntu 22.04.5 LTS",
                    "systemUUID": self.ids.uid("system", name),
                },
            },
        }

    def _device_classes(self) -> Iterator[dict[str, Any]]:
        present = self._present_classes()
        if NPU_CLASS in present:
            meta = self._meta("DeviceClass", NPU_CLASS, created=-86400 * 20)
            meta["generation"] = 1
            meta["labels"] = {"app.kubernetes.io/managed-by": "Helm"}
            meta["annotations"] = {
                "meta.helm.sh/release-name": "rbln-npu-operator",
                "meta.helm.sh/release-namespace": "rbln-system",
            }
            spec: dict[str, Any] = {
                "selectors": [{"cel": {"expression": f'device.driver == "{NPU_DRIVER}"'}}]
            }
            if self.knobs.extended_resource_name:
                spec["extendedResourceName"] = NPU_RESOURCE_PREFIX + "npu"
            yield {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta, "spec": spec}
        if NIC_CLASS in present:
            meta = self._meta("DeviceClass", NIC_CLASS, created=-86400 * 19)
            meta["generation"] = 1
            applied = {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "DeviceClass",
                "metadata": {"annotations": {}, "name": NIC_CLASS},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{NIC_DRIVER}"'}}]},
            }
            meta["annotations"] = {
                "kubectl.kubernetes.io/last-applied-configuration": _last_applied(
                    to_api_shape(applied, self.api_version)
                )
            }
            yield {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "DeviceClass",
                "metadata": meta,
                "spec": applied["spec"],
            }

    def _slices(self, node: str, npus: list[Device], nics: list[Device]) -> Iterator[dict[str, Any]]:
        k = self.knobs
        for driver, devices in ((NPU_DRIVER, npus), (NIC_DRIVER, nics)):
            if driver in k.drop_slices or (driver == NPU_DRIVER and not k.dra_npu):
                continue
            if driver in k.empty_slices:
                devices = []
            name = f"{node}-{driver}-{self.ids.suffix(5, 'slice', node, driver)}"
            meta = self._meta("ResourceSlice", name, created=-86400 * 19 + 120)
            meta["generateName"] = f"{node}-{driver}-"
            meta["generation"] = 1
            meta["ownerReferences"] = [
                {
                    "apiVersion": "v1",
                    "controller": True,
                    "kind": "Node",
                    "name": node,
                    "uid": self.ids.uid("Node", "", node),
                }
            ]
            yield {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": meta,
                "spec": {
                    "devices": [device_json(d) for d in devices],
                    "driver": driver,
                    "nodeName": node,
                    "pool": {
                        "generation": 1,
                        "name": node,
                        "resourceSliceCount": 2 if driver in k.incomplete_pools else 1,
                    },
                },
            }

    # ---- namespaced objects

    def _template(self) -> dict[str, Any]:
        k = self.knobs
        recipe = k.rct or "numa-aligned"
        meta = self._meta("ResourceClaimTemplate", template_name(recipe), k.namespace, created=-86400 * 2)
        meta["annotations"] = {
            "kubectl.kubernetes.io/last-applied-configuration": _last_applied(
                to_api_shape(applied_manifest(recipe, k), self.api_version)
            )
        }
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": meta,
            "spec": {"metadata": {}, "spec": {"devices": stored_spec(recipe, k)}},
        }

    def _claim_name(self, plan: _PodPlan) -> str:
        return f"{plan.name}-{self._pod_claim()}-{self.ids.suffix(5, 'claim', plan.name)}"

    def _pod_claim(self) -> str:
        return template_name(self.knobs.rct or "numa-aligned")

    def _pod_created(self, plan: _PodPlan) -> int:
        return (
            -3600 * 5
            + (0 if plan.running else 3600 * 4)
            + plan.index * 40
            + (0 if plan.component == "prefill" else 7)
        )

    def _pod(self, plan: _PodPlan, outcome: _Outcome | None) -> dict[str, Any]:
        k = self.knobs
        dra = k.pod_mode == "dra"
        created = self._pod_created(plan)
        meta = self._meta("Pod", plan.name, k.namespace, created=created)
        rs = f"{k.release}-{plan.component}-{self._rs_hash(plan.component)}"
        meta["generateName"] = f"{rs}-"
        meta["labels"] = {
            "app.kubernetes.io/component": plan.component,
            "app.kubernetes.io/instance": k.release,
            "app.kubernetes.io/name": "rbln-serving",
            "pod-template-hash": self._rs_hash(plan.component),
        }
        meta["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": "ReplicaSet",
                "name": rs,
                "uid": self.ids.uid("ReplicaSet", k.namespace, rs),
            }
        ]
        resources: dict[str, Any] = {
            "limits": {"memory": "128Gi"},
            "requests": {"cpu": "16", "memory": "128Gi"},
        }
        spec: dict[str, Any] = {}
        if dra:
            resources["claims"] = [{"name": self._pod_claim()}]
            spec["resourceClaims"] = [
                {"name": self._pod_claim(), "resourceClaimTemplateName": self._pod_claim()}
            ]
        else:
            for key in ("limits", "requests"):
                resources[key].update({NIC_RESOURCE_PREFIX + "hca": "2", NPU_RESOURCE_PREFIX + "ATOM": "4"})
        container = {
            "args": [f"--role={plan.component}"],
            "image": "rebellions/rbln-modelserver:0.9.1",
            "imagePullPolicy": "IfNotPresent",
            "name": "modelserver",
            "ports": [{"containerPort": 8000, "name": "http", "protocol": "TCP"}],
            "resources": resources,
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
        }
        spec.update(
            {
                "containers": [container],
                "dnsPolicy": "ClusterFirst",
                "enableServiceLinks": True,
                "preemptionPolicy": "PreemptLowerPriority",
                "priority": 0,
                "restartPolicy": "Always",
                "schedulerName": "default-scheduler",
                "securityContext": {"runAsGroup": 2000, "runAsNonRoot": True, "runAsUser": 2000},
                "serviceAccount": "default",
                "serviceAccountName": "default",
                "terminationGracePeriodSeconds": 30,
                "tolerations": [
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
            }
        )
        if plan.component == "prefill" and k.prefill_rds_selector:
            spec["nodeSelector"] = {RDS_LABEL: "true"}
        if plan.node:
            spec["nodeName"] = plan.node
        status = self._pod_status(plan, outcome, created)
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}

    def _pod_status(self, plan: _PodPlan, outcome: _Outcome | None, created: int) -> dict[str, Any]:
        k = self.knobs
        dra = k.pod_mode == "dra"
        status: dict[str, Any] = {"phase": "Pending", "qosClass": "Burstable"}
        if dra and k.rct is not None and (plan.running or k.claim_created):
            status["resourceClaimStatuses"] = [
                {"name": self._pod_claim(), "resourceClaimName": self._claim_name(plan)}
            ]
        if not plan.running:
            if outcome is not None:
                status["conditions"] = [
                    {
                        "lastProbeTime": None,
                        "lastTransitionTime": ts(created + 2),
                        "message": outcome.message,
                        "reason": outcome.reason,
                        "status": "False",
                        "type": "PodScheduled",
                    }
                ]
            return status
        node_index = self._node_index[plan.node or ""]
        started = created + 3
        ready = "False" if plan.crash else "True"
        status.update(
            {
                "conditions": [
                    _pod_condition("PodReadyToStartContainers", "True", created + 10),
                    _pod_condition("Initialized", "True", created + 3),
                    _pod_condition(
                        "Ready", ready, created + 240, "ContainersNotReady" if plan.crash else None
                    ),
                    _pod_condition(
                        "ContainersReady", ready, created + 240, "ContainersNotReady" if plan.crash else None
                    ),
                    _pod_condition("PodScheduled", "True", created + 2),
                ],
                "hostIP": f"10.0.{(node_index + 1) // 250}.{(node_index + 1) % 250 + 10}",
                "phase": "Running",
                "podIP": self._pod_ip(plan, node_index),
                "startTime": ts(started),
            }
        )
        status["hostIPs"] = [{"ip": status["hostIP"]}]
        status["podIPs"] = [{"ip": status["podIP"]}]
        container_id = "containerd://" + self.ids.hex(64, "container", plan.name)
        image = "docker.io/rebellions/rbln-modelserver:0.9.1"
        image_id = "docker.io/rebellions/rbln-modelserver@sha256:" + self.ids.hex(64, "image")
        cs: dict[str, Any] = {
            "containerID": container_id,
            "image": image,
            "imageID": image_id,
            "name": "modelserver",
            "ready": not plan.crash,
            "restartCount": 0,
            "started": not plan.crash,
        }
        if plan.crash:
            restarts = self.ids.num(6, 14, "restarts", plan.name)
            cs["restartCount"] = restarts
            cs["lastState"] = {
                "terminated": {
                    "containerID": container_id,
                    "exitCode": 1,
                    "finishedAt": ts(-120),
                    "reason": "Error",
                    "startedAt": ts(-123),
                }
            }
            cs["state"] = {
                "waiting": {
                    "message": "back-off 5m0s restarting failed container=modelserver "
                    f"pod={plan.name}_{k.namespace}"
                    f"({self.ids.uid('Pod', k.namespace, plan.name)})",
                    "reason": "CrashLoopBackOff",
                }
            }
        else:
            cs["lastState"] = {}
            cs["state"] = {"running": {"startedAt": ts(started + 20)}}
        status["containerStatuses"] = [cs]
        return status

    def _pod_ip(self, plan: _PodPlan, node_index: int) -> str:
        return f"{pod_net(node_index + 1)}.{plan.index * 2 + (10 if plan.component == 'prefill' else 11)}"

    def _claim(self, plan: _PodPlan, pod: dict[str, Any]) -> dict[str, Any] | None:
        k = self.knobs
        if k.rct is None or (not plan.running and not k.claim_created):
            return None
        name = self._claim_name(plan)
        created = self._pod_created(plan) + 1
        meta = self._meta("ResourceClaim", name, k.namespace, created=created)
        meta["annotations"] = {POD_CLAIM_NAME_ANNOTATION: self._pod_claim()}
        meta["generateName"] = f"{plan.name}-{self._pod_claim()}-"
        meta["ownerReferences"] = [
            {
                "apiVersion": "v1",
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": "Pod",
                "name": plan.name,
                "uid": pod["metadata"]["uid"],
            }
        ]
        claim: dict[str, Any] = {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": meta,
            "spec": {"devices": stored_spec(k.rct, k)},
        }
        if plan.running and plan.node:
            meta["finalizers"] = ["resource.kubernetes.io/delete-protection"]
            results = [
                {"device": d.name, "driver": d.driver, "pool": d.node, "request": "npu"} for d in plan.npus
            ] + [{"device": d.name, "driver": d.driver, "pool": d.node, "request": "nic"} for d in plan.nics]
            claim["status"] = {
                "allocation": {
                    "devices": {"results": results},
                    "nodeSelector": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": [plan.node]}
                                ]
                            }
                        ]
                    },
                },
                "reservedFor": [{"name": plan.name, "resource": "pods", "uid": pod["metadata"]["uid"]}],
            }
        return claim

    def _events(
        self, plan: _PodPlan, pod: dict[str, Any], outcome: _Outcome | None
    ) -> Iterator[dict[str, Any]]:
        k = self.knobs
        created = self._pod_created(plan)
        if outcome is not None:
            count = self.ids.num(3, 40, "event-count", plan.name)
            yield self._event(
                pod,
                "FailedScheduling",
                event_note(outcome.message),
                count,
                created + 2,
                {"component": "default-scheduler"},
                "default-scheduler",
                f"default-scheduler-{self.cp_node_name or self.npu_node_names[0]}",
                "Scheduling",
            )
        if k.pod_mode == "dra" and k.rct is None and not plan.running:
            tmpl = template_name("numa-aligned")
            message = (
                f'PodResourceClaim {tmpl}: resource claim template "{tmpl}": '
                f'resourceclaimtemplate.resource.k8s.io "{tmpl}" not found'
            )
            count = self.ids.num(5, 30, "claim-event-count", plan.name)
            yield self._event(
                pod,
                "FailedResourceClaimCreation",
                message,
                count,
                created + 1,
                {"component": "resource_claim"},
                "resource_claim",
                "",
                None,
            )
        if plan.crash and plan.node:
            message = (
                f"Back-off restarting failed container modelserver in pod "
                f"{plan.name}_{k.namespace}({pod['metadata']['uid']})"
            )
            count = self.ids.num(40, 90, "backoff-count", plan.name)
            yield self._event(
                pod,
                "BackOff",
                message,
                count,
                created + 60,
                {"component": "kubelet", "host": plan.node},
                "kubelet",
                plan.node,
                None,
            )

    def _event(
        self,
        pod: dict[str, Any],
        reason: str,
        message: str,
        count: int,
        first: int,
        source: dict[str, str],
        component: str,
        instance: str,
        action: str | None,
    ) -> dict[str, Any]:
        pod_meta = pod["metadata"]
        name = f"{pod_meta['name']}.{self.ids.hex(16, 'event', pod_meta['name'], reason)}"
        meta = self._meta("Event", name, pod_meta["namespace"], created=first)
        event: dict[str, Any] = {
            "apiVersion": "v1",
            "count": count,
            "eventTime": None,
            "firstTimestamp": ts(first),
            "involvedObject": {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": pod_meta["name"],
                "namespace": pod_meta["namespace"],
                "resourceVersion": pod_meta["resourceVersion"],
                "uid": pod_meta["uid"],
            },
            "kind": "Event",
            "lastTimestamp": ts(-60 - self.ids.num(0, 240, "event-last", name)),
            "message": message,
            "metadata": meta,
            "reason": reason,
            "reportingComponent": component,
            "reportingInstance": instance,
            "source": source,
            "type": "Warning",
        }
        if action:
            event["action"] = action
        return event

    def _captures(self, plan: _PodPlan) -> Iterator[dict[str, Any]]:
        k = self.knobs
        meta = {"name": plan.name, "namespace": k.namespace}
        if plan.crash:
            yield {
                "apiVersion": "kubectl-rbln/v1",
                "kind": "PodLog",
                "metadata": dict(meta),
                "container": "modelserver",
                "previous": True,
                "log": MEMLOCK_LOG,
            }
            return
        if k.pod_mode != "dra":
            return
        hcas = [d.rdma_device for d in plan.nics if d.rdma_device]
        rdma_nics = [d for d in plan.nics if d.rdma_device]
        stdout = format_probe_output(  # probe v2: each NIC in the Pod under its host name, HCA ACTIVE
            interfaces=[(d.attr(IF_NAME_ATTR), "up", "9000", d.attr(PCI_ADDRESS_ATTR)) for d in plan.nics],
            rdma=[
                (str(d.rdma_device), "ACTIVE", "Ethernet", d.attr(PCI_ADDRESS_ATTR), f"uverbs{i}")
                for i, d in enumerate(rdma_nics)
            ],
            infiniband=hcas,
            uverbs=[(f"uverbs{i}", hca) for i, hca in enumerate(hcas)],
            npus=[d.name for d in plan.npus],
            rsd=["rsd0"] if len(plan.npus) > 1 else [],
            rds=["rblnfs0"] if k.node_rds_label else [],
            netns="Y",
        )
        yield {
            "apiVersion": "kubectl-rbln/v1",
            "kind": "ExecCapture",
            "metadata": dict(meta),
            "container": "modelserver",
            "command": list(PROBE_COMMAND),
            "stdout": stdout,
            "stderr": "",
            "exitCode": 0,
        }


def _node_condition(kind: str, status: str, reason: str, message: str, heartbeat: str) -> dict[str, Any]:
    return {
        "lastHeartbeatTime": heartbeat,
        "lastTransitionTime": ts(-86400 * 60 + 300),
        "message": message,
        "reason": reason,
        "status": status,
        "type": kind,
    }


def _pod_condition(kind: str, status: str, at: int, reason: str | None = None) -> dict[str, Any]:
    cond: dict[str, Any] = {
        "lastProbeTime": None,
        "lastTransitionTime": ts(at),
        "status": status,
        "type": kind,
    }
    if reason:
        cond["reason"] = reason
        cond["message"] = "containers with unready status: [modelserver]"
    return cond


def _last_applied(manifest: dict[str, Any]) -> str:
    return json.dumps(manifest, separators=(",", ":"), sort_keys=True) + "\n"


def build_cluster(seed: int = 0, api_version: str = "v1", **knobs: Any) -> list[dict[str, Any]]:
    """Shorthand for `ClusterBuilder(seed, api_version, **knobs).build()`."""
    return ClusterBuilder(seed, api_version, **knobs).build()
