"""What a Pod should have received, held against what the probe saw inside it: pure, on a Snapshot.

The expectation comes from the cluster: the devices in the allocation of each
claim the container uses (or, for device-plugin Pods, the extended-resource
counts), the node's `rebellions.ai/rds.present` label, and the run mode. The
rules are the by-hand checks of seeds 000-002 and ecosystem-facts.md 1.4 / 2.3:
- NPUs: one /dev/rbln<N> per allocated NPU, named as the driver names its devices: an
  allocated one missing and one visible that was not allocated are separate findings;
  /dev/rsd0 (the claim's RSD group) when more than one NPU is allocated;
- NICs (probe v2): each allocated dranet NIC is found among the Pod's interfaces by
  its PCI address (`dra.net/pciAddress`), else by the name dranet reported in the
  claim's status (`networkData.interfaceName`) or published (`dra.net/ifName`): dranet
  moves and may rename the netdev (google/dranet pkg/driver/hostdevice.go). Each RDMA
  NIC then needs its RDMA device (same PCI address, else `dra.net/rdmaDevice`), an
  ACTIVE port and a uverbs character device that opens, whatever the RDMA netns mode:
  dranet injects /dev/infiniband/uverbsN through NRI apart from moving the netdev
  (pkg/driver/nri_hooks.go), so it can go missing on its own. A v1 capture (no links,
  no PCI addresses) is judged like v3 where it holds the same facts: each of the Pod's
  RDMA devices without a uverbs device is `uverbs-missing` (named by its HCA when sysfs
  names the uverbs devices), and the Pod's RDMA devices are counted (HCAs in exclusive
  mode; in shared mode the host's are all visible, so only too many uverbs devices is a count);
- RDS: /dev/rblnfs* exactly when the node carries the RDS label (and NPUs were allocated);
- memlock: `unlimited` when the Pod has RDMA NICs and runs non-root.
- health: the container's `allocatedResourcesStatus` (KEP-4680, beta in 1.36) shown
  beside the probe; a device reported Unhealthy is a finding.
The allocation itself is audited against its constraints, because an allocator
bug (kubernetes/kubernetes#140438) could return duplicates for distinctAttribute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.catalog import Phrase, Said
from kubectl_rbln.cluster.exec_probe import NetIf, ProbeProblem, ProbeResult, RdmaDev
from kubectl_rbln.diagnose.context import PodClaim, find_pods, is_device_pod, pod_context, restart_target
from kubectl_rbln.diagnose.findings import Finding, dedupe, ordered
from kubectl_rbln.domain import (
    IF_NAME_ATTR,
    KUBELET_PLUGINS,
    NIC_DRIVER,
    NIC_RESOURCE_PREFIX,
    NPU_DRIVER,
    NPU_RESOURCE_PREFIX,
    PCI_ADDRESS_ATTR,
    RDMA_ATTR,
    RDMA_DEVICE_ATTR,
    RDS_LABEL,
    plugin_driver,
)
from kubectl_rbln.dra.constraints import applies, lookup_attribute, typed
from kubectl_rbln.dra.model import Constraint, Device, Pod, ResourceHealth, Snapshot


@dataclass(frozen=True, slots=True)
class NicExpect:
    """One allocated dranet NIC, with what identifies it inside the Pod."""

    device: str  # the ResourceSlice device name (pci-0000-1a-00-0)
    rdma: bool  # dra.net/rdma (True when the slice is gone: the claim asked for RDMA NICs)
    pci: str = ""  # dra.net/pciAddress
    if_name: str = ""  # dra.net/ifName: the host's name, kept in the Pod unless configured
    pod_if_name: str = ""  # the claim's status.devices[].networkData.interfaceName
    rdma_device: str = ""  # dra.net/rdmaDevice, where a dranet version publishes it

    def label(self) -> str:
        """How a finding names it: the device and its PCI address."""
        return f"{self.device} ({self.pci})" if self.pci else self.device

    def to_dict(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "rdma": self.rdma,
            "pciAddress": self.pci,
            "ifName": self.if_name,
            "interfaceName": self.pod_if_name,
            "rdmaDevice": self.rdma_device,
        }


@dataclass(slots=True)
class Expected:
    """What the cluster says one container should see."""

    source: str  # "claims" | "extended-resources" | "none"
    claims: list[str] = field(default_factory=list)
    npus: list[str] = field(default_factory=list)  # device names (rbln0 ...); empty for extended resources
    npu_count: int = 0
    nics: list[str] = field(default_factory=list)  # RDMA NIC device names (pci-0000-...)
    rdma_devices: list[str] = field(default_factory=list)  # their HCA names (bnxt_re0 ...), when published
    nic_count: int = 0
    nic_devices: list[NicExpect] = field(default_factory=list)  # every allocated dranet NIC
    rds: bool | None = None  # the node's RDS label; None when the node could not be read
    node: str = ""
    npu_resources: list[str] = field(default_factory=list)  # device-plugin mode: rebellions.ai/ATOM ...

    @property
    def rsd(self) -> bool:
        return self.npu_count > 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "claims": self.claims,
            "npus": self.npus,
            "npuCount": self.npu_count,
            "nics": self.nics,
            "rdmaDevices": self.rdma_devices,
            "nicCount": self.nic_count,
            "nicDevices": [n.to_dict() for n in self.nic_devices],
            "rds": self.rds,
            "rsd": self.rsd,
        }


@dataclass(slots=True)
class Seen:
    """The probe's result reduced to what is compared, with the RDMA mode decided."""

    result: ProbeResult
    rdma_mode: str  # "shared" | "exclusive" | "unknown"
    mode_source: str  # "ib_core" (netns_mode read) | "inferred" | ""
    nic_count: int
    nic_names: list[str]  # HCA names behind what was counted, when all are known
    links: list[NicLink] = field(default_factory=list)  # probe v2: each allocated NIC as the Pod sees it
    present: int | None = None  # v1: the Pod's RDMA devices, with or without a uverbs device
    no_uverbs: list[str] = field(default_factory=list)  # v1: those without one, by HCA ("" unnamed)


@dataclass(frozen=True, slots=True)
class NicLink:
    """One allocated NIC matched to what the Pod sees (probe v2): its netdev, RDMA device, uverbs."""

    nic: NicExpect
    netif: NetIf | None
    hca: RdmaDev | None
    uverbs: str  # the uverbs device for the HCA ("" when none is known)
    uverbs_ok: bool

    @property
    def port_down(self) -> bool:
        port = self.hca.port if self.hca else ""
        return bool(port) and port != "ACTIVE"

    @property
    def usable(self) -> bool:
        if self.netif is None:
            return False
        return not self.nic.rdma or (self.hca is not None and self.uverbs_ok and not self.port_down)

    def to_dict(self) -> dict[str, Any]:
        return {
            "device": self.nic.device,
            "pciAddress": self.nic.pci,
            "interface": self.netif.to_dict() if self.netif else None,
            "rdmaDevice": self.hca.to_dict() if self.hca else None,
            "uverbs": self.uverbs,
            "uverbsOpens": self.uverbs_ok,
            "usable": self.usable,
        }


# ---------------------------------------------------------------- selection and blockers


def select_pods(
    snapshot: Snapshot, names: list[str], namespace: str | None, selector: list[Any] | None
) -> tuple[list[Pod], list[str]]:
    """Named Pods (missing ones reported), else every device Pod in scope; `-l` filters both."""
    missing: list[str] = []
    if names:
        chosen, missing = find_pods(snapshot, names, namespace)
    else:
        chosen = [
            p for p in snapshot.pods if (namespace is None or p.namespace == namespace) and is_device_pod(p)
        ]
    if selector:
        chosen = [p for p in chosen if all(req.matches(p.labels) for req in selector)]
    return sorted(chosen, key=lambda p: (p.namespace, p.name)), missing


def blocker(pod: Pod, container: str) -> ProbeProblem | None:
    """Why exec cannot work, known before trying (kubectl checks the same on the Pod it GETs)."""
    if pod.phase != "Running":
        return ProbeProblem(
            "not-running",
            "not running",
            f"pod is {pod.phase}, not Running: nothing to probe "
            f"(kubectl rbln why {pod.name} -n {pod.namespace} explains a Pending Pod)",
            {"phase": pod.phase},
        )
    names = [c.name for c in pod.containers]
    if container not in names:
        return ProbeProblem(
            "no-container",
            "no container",
            f'container "{container}" not found in the pod (containers: {", ".join(names) or "none"}); '
            "choose one with -c",
            {"containers": ", ".join(names) or "-"},
        )
    state = next((s for s in pod.container_states if s.name == container), None)
    if state is not None and state.state and state.state != "running":
        why = state.reason or state.state
        return ProbeProblem(
            "container-not-running",
            "not running",
            f'container "{container}" is not running ({why})',
            {"why": why},
        )
    return None


# ---------------------------------------------------------------- expectation


def device_index(snapshot: Snapshot) -> dict[tuple[str, str, str], Device]:
    """(driver, pool, device) -> the device, built once per Snapshot (why decides every running Pod's
    devices stage from it)."""
    return snapshot.memo("device-index", lambda: {d.key: d for s in snapshot.slices for d in s.devices})


def _container_results(claim: PodClaim, requests: list[str | None]) -> list[Any]:
    """Allocation results of a claim that a container's `resources.claims` entries select."""
    if claim.claim is None or claim.claim.allocation is None:
        return []
    results = claim.claim.allocation.results
    if None in requests:
        return list(results)
    return [r for r in results if any(r.request == q or r.request.startswith(f"{q}/") for q in requests)]


def expected_devices(snapshot: Snapshot, pod: Pod, container: str) -> Expected:
    """The devices the container was given, by the cluster's account."""
    node = snapshot.nodes.get(pod.node_name or "")
    rds = None if node is None else node.labels.get(RDS_LABEL) == "true"
    spec = next((c for c in pod.containers if c.name == container), None)
    if pod.resource_claims:
        wanted: dict[str, list[str | None]] = {}
        for entry in spec.claims if spec else []:
            wanted.setdefault(entry.get("name", ""), []).append(entry.get("request") or None)
        if spec is None:  # no such container: show what the Pod as a whole was given
            wanted = {ref.name: [None] for ref in pod.resource_claims}
        index = device_index(snapshot)
        out = Expected(source="claims", rds=rds, node=pod.node_name or "")
        nics: list[NicExpect] = []
        for claim in pod_context(snapshot, pod).claims:
            if claim.ref.name not in wanted:
                continue
            if claim.claim_name:
                out.claims.append(claim.claim_name)
            for result in _container_results(claim, wanted[claim.ref.name]):
                device = index.get(result.key)
                if result.driver == NPU_DRIVER:
                    out.npus.append(result.device)
                elif result.driver == NIC_DRIVER:
                    status = claim.claim.device_status(*result.key) if claim.claim else None
                    nic = _nic_expect(result.device, device, status.interface_name if status else "")
                    nics.append(nic)
                    if nic.rdma:
                        out.nics.append(result.device)
                        if nic.rdma_device:
                            out.rdma_devices.append(nic.rdma_device)
        out.nic_devices = nics
        out.npu_count, out.nic_count = len(out.npus), len(out.nics)
        return out
    resources = {**(spec.requests if spec else {}), **(spec.limits if spec else {})}
    npu = sum(_count(v) for k, v in resources.items() if k.startswith(NPU_RESOURCE_PREFIX))
    rdma = sum(_count(v) for k, v in resources.items() if k.startswith(NIC_RESOURCE_PREFIX))
    source = "extended-resources" if npu or rdma else "none"
    names = sorted(k for k in resources if k.startswith(NPU_RESOURCE_PREFIX))
    return Expected(
        source=source, npu_count=npu, nic_count=rdma, rds=rds, node=pod.node_name or "", npu_resources=names
    )


def _nic_expect(name: str, device: Device | None, pod_if_name: str) -> NicExpect:
    """One allocated dranet NIC and what finds it in the Pod; a NIC whose slice is gone counts as RDMA
    (the claim asked for RDMA NICs) with nothing but its name to go by."""

    def text(attribute: str) -> str:
        value = lookup_attribute(device, attribute) if device else None
        return value if isinstance(value, str) else ""

    rdma = device is None or lookup_attribute(device, RDMA_ATTR) is True
    pci = text(PCI_ADDRESS_ATTR).lower()  # sysfs prints PCI addresses in lower case
    return NicExpect(name, rdma, pci, text(IF_NAME_ATTR), pod_if_name, text(RDMA_DEVICE_ATTR))


def _count(value: str) -> int:
    return int(value) if value.isdigit() else 0


def seen_devices(result: ProbeResult, expected: Expected | None = None) -> Seen:
    """What the Pod can use. Probe v2: each allocated NIC matched (`link_nics`), the usable ones
    counted, or for device-plugin Pods the uverbs devices that open. v1: the RDMA mode decides
    what is counted, uverbs in shared mode, HCA entries otherwise."""
    mode, source = result.netns_mode or "unknown", "ib_core" if result.netns_mode else ""
    if mode == "unknown" and len(result.infiniband) > len(result.uverbs) > 0:
        mode, source = "shared", "inferred"  # more HCAs than verbs devices: the host's HCAs are visible
    if result.knows_links and expected is not None:
        if expected.source == "claims":
            links = link_nics(expected.nic_devices, result)
            usable = [link for link in links if link.nic.rdma and link.usable]
            names = [link.hca.name for link in usable if link.hca is not None]
            return Seen(result, mode, source, len(usable), sorted(names), links)
        opened = [u for u in result.uverbs if result.openable(u)]
        names = [result.uverbs_hca.get(u, "") for u in opened]
        return Seen(result, mode, source, len(opened), sorted(names) if all(names) else [])
    if expected is not None and expected.source == "extended-resources":  # v1: as v3, those that exist
        hcas = [result.uverbs_hca.get(u, "") for u in result.uverbs]
        return Seen(result, mode, source, len(result.uverbs), sorted(hcas) if all(hcas) else [])
    if expected is not None and expected.source == "claims":
        return _seen_v1(result, mode, source, expected)
    if mode == "shared":
        hcas = [result.uverbs_hca.get(u, "") for u in result.uverbs]
        names = hcas if all(hcas) else []
        return Seen(result, mode, source, len(result.uverbs), sorted(names))
    return Seen(result, mode, source, len(result.infiniband), list(result.infiniband))


def _seen_v1(result: ProbeResult, mode: str, source: str, expected: Expected) -> Seen:
    """A v1 capture of a Pod with claims: its RDMA devices and those without a uverbs device, which v1
    tells apart only by the HCA each uverbs device names (sysfs ibdev); without those names, by count.
    Exclusive mode: /sys/class/infiniband holds the Pod's HCAs only. Shared mode: it holds the host's,
    so the Pod's are the allocation's (`dra.net/rdmaDevice` where published), else only counted."""
    named = set(result.uverbs_hca.values())
    unnamed = [u for u in result.uverbs if not result.uverbs_hca.get(u)]
    if mode == "shared":
        published = expected.rdma_devices if len(expected.rdma_devices) == expected.nic_count else []
        if published and not unnamed:
            missing = [h for h in published if h not in named]
        else:
            missing = [""] * max(0, expected.nic_count - len(result.uverbs))
        hcas = [result.uverbs_hca.get(u, "") for u in result.uverbs]
        present = max(len(result.uverbs), expected.nic_count)  # fewer uverbs is uverbs-missing, not a count
        usable = present - len(missing)
        return Seen(result, mode, source, usable, sorted(hcas) if all(hcas) else [], [], present, missing)
    hcas = list(result.infiniband)
    if unnamed:
        missing = [""] * max(0, len(hcas) - len(result.uverbs))
    else:
        missing = [h for h in hcas if h not in named]
    return Seen(result, mode, source, len(hcas) - len(missing), hcas, [], len(hcas), missing)


def link_nics(nics: list[NicExpect], result: ProbeResult) -> list[NicLink]:
    """Each allocated NIC matched to the Pod's view: netdev by PCI address, then by name; its RDMA
    device by PCI address, then by `dra.net/rdmaDevice`; its uverbs device from sysfs, else by HCA."""
    links = []
    for nic in nics:
        netif = _by_pci(result.interfaces, nic.pci) or next(
            (i for i in result.interfaces if i.name and i.name in (nic.pod_if_name, nic.if_name)), None
        )
        hca = _by_pci(result.rdma, nic.pci) or next(
            (r for r in result.rdma if nic.rdma_device and r.name == nic.rdma_device), None
        )
        if netif is None:
            links.append(NicLink(nic, None, hca, "", False))
            continue
        uverbs = ""
        if hca is not None:
            uverbs = hca.uverbs or next((u for u, h in result.uverbs_hca.items() if h == hca.name), "")
        links.append(NicLink(nic, netif, hca, uverbs, bool(uverbs) and result.openable(uverbs)))
    return links


def _by_pci(items: list[Any], pci: str) -> Any:
    return next((item for item in items if pci and item.pci == pci), None) if pci else None


# ---------------------------------------------------------------- comparison: one rule per finding


@dataclass(frozen=True, slots=True)
class Where:
    """The probed container, named as every pod-devices finding names it, and what its fixes need: the
    node to run node-side commands on, whether deleting the Pod brings it back, the drivers' Pods there."""

    pod: str
    namespace: str
    container: str
    node: str
    claim: str  # the container's first claim, "<claim>" when it uses none
    owned: bool = False  # a controller owns the Pod: deleted, it is created again
    runtime: str = ""  # the node's container runtime (containerd, cri-o); "" when not read
    plugins: tuple[tuple[str, str, str], ...] = ()  # (driver, namespace, Pod): kubelet plugins on the node

    def values(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "namespace": self.namespace,
            "container": self.container,
            "node": self.node,
            "claim": self.claim,
            "owned": self.owned,
            "fix_nodes": [self.node] if self.node else [],
        }

    def driver_values(self, driver: str) -> dict[str, Any]:
        """Where `driver`'s kubelet plugin runs, and its Pod on the node (`driver_pod`, "" when not read)."""
        plugin = KUBELET_PLUGINS[driver]
        found = next(((ns, name) for d, ns, name in self.plugins if d == driver), None)
        return {
            "driver_namespace": found[0] if found else plugin.namespace,
            "plugin_label": plugin.label,
            "driver_pod": found[1] if found else "",
        }


def _where(pod: Pod, container: str, expected: Expected, snapshot: Snapshot | None = None) -> Where:
    claim = expected.claims[0] if expected.claims else "<claim>"
    node = snapshot.nodes.get(expected.node) if snapshot is not None and expected.node else None
    runtime = node.container_runtime.split(":", 1)[0] if node is not None else ""
    plugins = plugin_pods_on(snapshot).get(expected.node, ()) if snapshot is not None else ()
    owned = bool(pod.owner_kind and pod.owner_name)
    return Where(pod.name, pod.namespace, container, expected.node, claim, owned, runtime, plugins)


def plugin_pods_on(snapshot: Snapshot) -> dict[str, tuple[tuple[str, str, str], ...]]:
    """node -> (driver, namespace, Pod) of every DRA kubelet plugin Pod there, built once per Snapshot
    (why asks it for every running Pod's devices stage)."""

    def build() -> dict[str, tuple[tuple[str, str, str], ...]]:
        found: dict[str, list[tuple[str, str, str]]] = {}
        for p in snapshot.pods:
            driver = plugin_driver(p.name, p.labels)
            if driver is not None and p.node_name:
                found.setdefault(p.node_name, []).append((driver, p.namespace, p.name))
        return {node: tuple(pods) for node, pods in found.items()}

    return snapshot.memo("plugin-pods-on", build)


def compare(
    pod: Pod, container: str, expected: Expected, seen: Seen, where: Where | None = None
) -> list[Finding]:
    """Findings for one probed container; an empty list means it got what was allocated."""
    where = where or _where(pod, container, expected)
    result = seen.result
    if seen.links or (result.knows_links and expected.source == "claims"):
        nic_findings = nic_link_findings(where, seen)
    else:
        nic_findings = [nic_count_mismatch(where, expected, seen), uverbs_missing_v1(where, expected, seen)]
    if expected.source == "claims":  # named NPUs: each one missing, or seen and not allocated
        npu_findings = [npu_missing(where, expected, result), npu_not_allocated(where, expected, result)]
    else:
        npu_findings = [npu_count_mismatch(where, expected, result)]
    found = [
        *npu_findings,
        rsd_group_missing(where, expected, result),
        *nic_findings,
        rds_devices_missing(where, expected, result),
        rds_label_missing(where, expected, result),
        memlock_limit(where, expected, result, runs_non_root(pod, container, result)),
    ]
    return [finding for finding in found if finding is not None]


def npu_count_mismatch(where: Where, expected: Expected, result: ProbeResult) -> Finding | None:
    """`npu-count-mismatch` (device-plugin Pods, whose NPUs have no names): fewer or more /dev/rbln
    devices than the extended resources ask for. Pods with claims get `npu-missing`/`npu-not-allocated`."""
    evidence = {"allocated": expected.npu_count, "seen": [f"/dev/{n}" for n in result.npus]}
    if len(result.npus) != expected.npu_count:
        values = {
            **where.values(),
            "seen": len(result.npus),
            "expected": expected.npu_count,
            "resources": ", ".join(expected.npu_resources) or "-",
        }
        return Finding("npu-count-mismatch", values, evidence)
    return None


def npu_missing(where: Where, expected: Expected, result: ProbeResult) -> Finding | None:
    """`npu-missing`: an allocated NPU has no /dev/rbln<N> in the container (driver/CDI side)."""
    missing = [n for n in expected.npus if n not in result.npus]
    if not missing:
        return None
    values = {
        **where.values(),
        **where.driver_values(NPU_DRIVER),
        "npus": [f"/dev/{n}" for n in missing],
        "count": len(missing),
    }
    evidence = {
        "allocated": expected.npus,
        "seen": [f"/dev/{n}" for n in result.npus],
        "claims": expected.claims,
    }
    return Finding("npu-missing", values, evidence)


def npu_not_allocated(where: Where, expected: Expected, result: ProbeResult) -> Finding | None:
    """`npu-not-allocated`: the container sees an NPU its claims did not allocate (privileged, a
    hostPath /dev, another device plugin): it can use a device another Pod was given."""
    extra = [n for n in result.npus if n not in expected.npus]
    if not extra:
        return None
    values = {**where.values(), "npus": [f"/dev/{n}" for n in extra], "count": len(extra)}
    evidence = {
        "allocated": expected.npus,
        "seen": [f"/dev/{n}" for n in result.npus],
        "claims": expected.claims,
    }
    return Finding("npu-not-allocated", values, evidence)


def nic_link_findings(where: Where, seen: Seen) -> list[Finding | None]:
    """Probe v2, per allocated NIC: not moved in, no RDMA device, no uverbs that opens, port not
    ACTIVE. One finding per cause, naming every NIC it applies to."""
    links = seen.links
    result = seen.result
    evidence_base = {
        "rdmaMode": rdma_mode(seen),
        "interfaces": [_iface(i) for i in result.interfaces],
        "rdmaDevices": [_hca(r) for r in result.rdma],
        "uverbs": [_uverbs(result, u) for u in result.uverbs],
    }
    nic = {**where.values(), **where.driver_values(NIC_DRIVER)}
    moved = [link for link in links if link.netif is None]
    no_hca = [link for link in links if link.netif and link.nic.rdma and link.hca is None]
    no_uverbs = [link for link in links if link.netif and link.hca and not link.uverbs_ok]
    down = [link for link in links if link.netif and link.hca and link.port_down]
    out: list[Finding | None] = []
    if moved:
        names = [link.nic.label() for link in moved]
        values = {**nic, "nics": names, "count": len(names)}
        evidence = {"allocated": [link.nic.to_dict() for link in moved], **evidence_base}
        out.append(Finding("nic-not-in-pod", values, evidence))
    if no_hca:
        names = [f"{link.nic.label()} = {link.netif.name}" for link in no_hca if link.netif]
        values = {**nic, "nics": names, "count": len(names)}
        out.append(Finding("rdma-device-missing", values, {**evidence_base}))
    if no_uverbs:
        names = [
            f"{link.hca.name} ({link.nic.device}): "
            + (f"/dev/infiniband/{link.uverbs}" if link.uverbs else "/dev/infiniband/uverbs?")
            for link in no_uverbs
            if link.hca
        ]
        shown = [link for link in no_uverbs if link.uverbs in result.uverbs]
        values = {**nic, "devices": names, "count": len(names)}
        case = "denied" if shown and len(shown) == len(no_uverbs) else None
        out.append(Finding("uverbs-missing", values, {**evidence_base}, case=case))
    if down:
        names = [f"{link.hca.name} ({link.nic.device}): {link.hca.port}" for link in down if link.hca]
        values = {**where.values(), "devices": names, "count": len(names)}
        out.append(Finding("rdma-port-down", values, {**evidence_base}))
    return out


def rdma_mode(seen: Seen) -> Said:
    """The RDMA netns mode and how it is known, said in the reader's words (`exclusive (ib_core)`)."""
    source = {"ib_core": "read", "inferred": "inferred"}.get(seen.mode_source, "")
    key = f"pod-devices-mode-{seen.rdma_mode}" + (f"-{source}" if source else "")
    return Said(Phrase(key, {"source": seen.mode_source}))


def _iface(netif: NetIf) -> Said:
    state = netif.state or "?"
    values = {"name": netif.name, "state": state, "link": state.upper(), "mtu": netif.mtu or "?"}
    return Said(Phrase("pod-devices-evidence-interface", {**values, "pci": netif.pci or "-"}))


def _hca(hca: RdmaDev) -> Said:
    link: Phrase | str = Phrase("pod-devices-link-ethernet") if hca.link == "Ethernet" else hca.link or "?"
    values = {
        "name": hca.name,
        "port": hca.port or "?",
        "link": link,  # RoCE's link layer, in the reader's word; InfiniBand stays the name it is
        "pci": hca.pci or "-",
        "uverbs": hca.uverbs or "-",
    }
    return Said(Phrase("pod-devices-evidence-rdma-device", values))


def _uverbs(result: ProbeResult, name: str) -> Said:
    """One uverbs device, its HCA when sysfs names it, and whether it opened (`uverbs0 (bnxt_re0) opens`)."""
    hca = result.uverbs_hca.get(name, "")
    opened = "" if name not in result.uverbs_open else ("-opens" if result.uverbs_open[name] else "-denied")
    key = "pod-devices-evidence-uverbs" + ("-hca" if hca else "") + opened
    return Said(Phrase(key, {"name": name, "hca": hca}))


def device_unhealthy(where: Where, health: list[ResourceHealth]) -> Finding | None:
    """`device-unhealthy`: the kubelet reports an allocated device Unhealthy in the container's
    allocatedResourcesStatus (KEP-4680: the driver's health stream, the device plugin's ListAndWatch)."""
    bad = [h for h in health if h.health == "Unhealthy"]
    if not bad:
        return None
    devices = [f'{h.resource_id}: "{h.message}"' if h.message else h.resource_id for h in bad]
    driver = bad[0].resource_id.split("/", 1)[0]
    plugin = where.driver_values(driver) if driver in KUBELET_PLUGINS else {"driver_pod": ""}
    values = {**where.values(), **plugin, "devices": devices, "count": len(bad)}
    evidence = {"allocatedResourcesStatus": [f"{h.name} {h.resource_id} {h.health}" for h in health]}
    return Finding("device-unhealthy", values, evidence)


def rsd_group_missing(where: Where, expected: Expected, result: ProbeResult) -> Finding | None:
    """`rsd-group-missing`: a claim of more than one NPU and no /dev/rsd0 in the container (the RBLN
    DRA driver's RSD group of the claim: a device-plugin Pod has no claim to group)."""
    if expected.source != "claims" or not expected.rsd or "rsd0" in result.rsd:
        return None
    evidence = {
        "allocated": expected.npu_count,
        "seen": [f"/dev/{n}" for n in result.rsd] or Said(Phrase("pod-devices-evidence-no-rsd")),
    }
    values = {**where.values(), **where.driver_values(NPU_DRIVER), "count": expected.npu_count}
    return Finding("rsd-group-missing", values, evidence)


def nic_count_mismatch(where: Where, expected: Expected, seen: Seen) -> Finding | None:
    """`nic-count-mismatch`: the RDMA devices counted (uverbs in shared mode) against the allocation."""
    result = seen.result
    evidence = {
        "rdmaMode": rdma_mode(seen),
        "allocated": expected.nics or expected.nic_count,
        "allocatedHCAs": expected.rdma_devices,
        "sysClassInfiniband": result.infiniband,
        "uverbs": [_uverbs(result, u) for u in result.uverbs],
        "counted": Said(Phrase(f"pod-devices-counted-{'uverbs' if seen.rdma_mode == 'shared' else 'hcas'}")),
    }
    counted = seen.nic_count if seen.present is None else seen.present  # v1: with or without uverbs
    if counted != expected.nic_count:
        values = {**where.values(), "seen": counted, "expected": expected.nic_count}
        case = "extended" if expected.source == "extended-resources" else None  # device-plugin mode
        return Finding("nic-count-mismatch", values, evidence, case=case)
    comparable = bool(expected.rdma_devices) and len(expected.rdma_devices) == expected.nic_count
    comparable = comparable and bool(seen.nic_names) and not seen.no_uverbs  # v1: no uverbs is said once
    if comparable and set(expected.rdma_devices) != set(seen.nic_names):
        values = {**where.values(), "seen": list(seen.nic_names), "expected": sorted(expected.rdma_devices)}
        return Finding("nic-count-mismatch", values, evidence, case="names")
    return None


def uverbs_missing_v1(where: Where, expected: Expected, seen: Seen) -> Finding | None:
    """`uverbs-missing` from a v1 capture: the fact v3 reports under this slug, an RDMA device of the Pod
    without its /dev/infiniband/uverbsN. v1 has no PCI addresses to tie it to its NIC, so it names the
    HCA (and its NIC where `dra.net/rdmaDevice` is published), or only counts it when sysfs named none."""
    if not seen.no_uverbs:
        return None
    result = seen.result
    nic_of = {n.rdma_device: n.device for n in expected.nic_devices if n.rdma_device}
    named = [
        f"{hca} ({nic_of[hca]}): " if hca in nic_of else f"{hca}: " if hca else "" for hca in seen.no_uverbs
    ]
    devices = [f"{name}/dev/infiniband/uverbs?" for name in named]
    values = {**where.values(), **where.driver_values(NIC_DRIVER), "devices": devices, "count": len(devices)}
    evidence = {
        "rdmaMode": rdma_mode(seen),
        "allocated": expected.nics or expected.nic_count,
        "sysClassInfiniband": result.infiniband,
        "uverbs": [_uverbs(result, u) for u in result.uverbs],
    }
    return Finding("uverbs-missing", values, evidence)


def _rds_evidence(expected: Expected, result: ProbeResult) -> dict[str, Any]:
    return {
        "node": expected.node,
        f"label {RDS_LABEL}": "true" if expected.rds else Said(Phrase("pod-devices-evidence-label-absent")),
        "seen": [f"/dev/{n}" for n in result.rds],
    }


def rds_devices_missing(where: Where, expected: Expected, result: ProbeResult) -> Finding | None:
    """`rds-devices-missing`: the node carries the RDS label, the NPU container has no /dev/rblnfs*."""
    if expected.rds is not True or expected.npu_count == 0 or result.rds:
        return None  # node unknown or unlabeled, no NPUs (RDS comes with NPUs only), or present
    return Finding("rds-devices-missing", where.values(), _rds_evidence(expected, result))


def rds_label_missing(where: Where, expected: Expected, result: ProbeResult) -> Finding | None:
    """`rds-label-missing` (pod-devices side): /dev/rblnfs* present on a node without the RDS label."""
    if expected.rds is not False or expected.npu_count == 0 or not result.rds:
        return None
    values = {**where.values(), "label_nodes": [f"node/{where.node}"] if where.node else []}
    return Finding("rds-label-missing", values, _rds_evidence(expected, result))


def runs_non_root(pod: Pod, container: str, result: ProbeResult) -> bool | None:
    """The uid the probe reported wins; else the securityContext; None when neither says."""
    if result.uid is not None:
        return result.uid != 0
    spec = next((c for c in pod.containers if c.name == container), None)
    uid = spec.run_as_user if spec and spec.run_as_user is not None else pod.run_as_user
    return None if uid is None else uid != 0


def memlock_limit(
    where: Where, expected: Expected, result: ProbeResult, non_root: bool | None
) -> Finding | None:
    """`memlock-limit` (pod-devices side): a non-root container with RDMA NICs and a limited memlock,
    unless the probe (v3) saw a capability that lifts the limit (`ProbeResult.memlock_exempt`:
    CAP_IPC_LOCK locks past it, CAP_SYS_RESOURCE raises it; in the initial user namespace only)."""
    if expected.nic_count == 0 or result.memlock == "unlimited" or not non_root or result.memlock_exempt:
        return None
    evidence = {
        "ulimit -H -l": result.memlock or Said(Phrase("pod-devices-evidence-nothing-printed")),
        "uid": result.uid,
        "rdmaNICs": expected.nic_count,
        "capEff": result.cap_eff or None,  # v3: neither capability in it, or not in the host's user ns
    }
    runtime = {"runtime_containerd": where.runtime == "containerd", "runtime_crio": where.runtime == "cri-o"}
    return Finding("memlock-limit", {**where.values(), **runtime}, evidence)


# ---------------------------------------------------------------- allocation audit


def audit_allocation(snapshot: Snapshot, pod: Pod) -> list[Finding]:
    """Allocated devices that break their claim's (or RCT's) matchAttribute / distinctAttribute."""
    index = device_index(snapshot)
    context = pod_context(snapshot, pod)
    findings = []
    for claim in context.claims:
        if claim.claim is None or claim.claim.allocation is None:
            continue
        for constraint in _constraints(claim):
            broken = _violation(constraint, claim.claim.allocation.results, index)
            if broken is None:
                continue
            source = context.claim_values(claim.ref)  # the RCT, or the ResourceClaim the Pod names itself
            source = {**source, **_claim_pods(snapshot, pod.namespace, claim.claim.name)}
            findings.append(
                allocation_constraint_violated(pod, claim.claim.name, _describe(constraint), broken, source)
            )
    return findings


def _claim_pods(snapshot: Snapshot, namespace: str, claim: str) -> dict[str, Any]:
    """The live Pods that name ResourceClaim `claim` themselves: `claim_pods`, those a controller creates
    again once deleted, and `claim_bare`, those none does (a fix cannot delete them and get them back)."""
    owned: list[str] = []
    bare: list[str] = []
    for other in snapshot.pods:
        if other.namespace != namespace or other.phase in ("Succeeded", "Failed"):
            continue
        if any(ref.resource_claim_name == claim for ref in other.resource_claims):
            (owned if other.owner_kind and other.owner_name else bare).append(other.name)
    return {"claim_pods": sorted(owned), "claim_bare": sorted(bare)}


def allocation_constraint_violated(
    pod: Pod, claim: str, constraint: Said, broken: dict[str, Any], source: dict[str, Any] | None = None
) -> Finding:
    """`allocation-constraint-violated`: the allocated devices of `claim` break `constraint`, which
    `source` (`claim_values`: `claim_source`, `direct_claim`) asked for."""
    values = {
        **(source or {}),
        "constraint": constraint,
        "claim": claim,
        "namespace": pod.namespace,
        "pod": pod.name,
        "restart": restart_target(pod),
        "owned": bool(pod.owner_kind and pod.owner_name),
    }
    return Finding(
        "allocation-constraint-violated", values, {"claim": claim, "constraint": constraint, **broken}
    )


def _constraints(claim: PodClaim) -> list[Constraint]:
    """The claim's constraints, plus the RCT's when the stored claim lost one (a dropped field)."""
    own = list(claim.claim.spec.constraints) if claim.claim else []
    extra = list(claim.template.spec.constraints) if claim.template else []
    keys = {(c.match_attribute, c.distinct_attribute, tuple(c.requests)) for c in own}
    return own + [
        c for c in extra if (c.match_attribute, c.distinct_attribute, tuple(c.requests)) not in keys
    ]


def _violation(
    constraint: Constraint, results: list[Any], index: dict[tuple[str, str, str], Device]
) -> dict[str, Any] | None:
    """Evidence of a broken constraint (device -> value), or None; typed comparison, like the allocator."""
    attribute = constraint.match_attribute or constraint.distinct_attribute
    if not attribute:
        return None
    shown: dict[str, str | None] = {}
    keys: list[tuple[str, Any] | None] = []
    for result in results:
        base, _, sub = result.request.partition("/")
        device = index.get(result.key)
        if device is None or not applies(constraint.requests, base, sub):
            continue  # not covered, or its slice is gone: nothing to audit against
        value = lookup_attribute(device, attribute)
        shown[f"{result.request}: {device.id}"] = None if value is None else str(value)
        keys.append(None if value is None else typed(value))
    if len(keys) < 2:
        return None
    present = [k for k in keys if k is not None]
    if constraint.match_attribute:
        if len(present) < len(keys) or len(set(present)) > 1:
            return {"devices": shown}
        return None
    duplicates = sorted({str(k[1]) for k in present if present.count(k) > 1})
    if len(present) < len(keys) or duplicates:
        return {"devices": shown, "duplicates": duplicates}
    return None


def _describe(constraint: Constraint) -> Said:
    """`distinctAttribute resource.kubernetes.io/pcieRoot over nic`, in the reader's words."""
    kind = "matchAttribute" if constraint.match_attribute else "distinctAttribute"
    attribute = constraint.match_attribute or constraint.distinct_attribute
    values = {"kind": kind, "attribute": attribute, "requests": ", ".join(constraint.requests)}
    return Said(Phrase("constraint-over" if constraint.requests else "constraint-over-all", values))


# ---------------------------------------------------------------- one Pod's entry of the report


@dataclass(slots=True)
class PodEntry:
    """One Pod of the report: what it should have, what the probe saw, why it was not probed, findings."""

    pod: Pod
    container: str
    expected: Expected
    result: ProbeResult | None
    seen: Seen | None
    problem: ProbeProblem | None
    findings: list[Finding]
    health: list[ResourceHealth] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if self.findings:
            extra = f" +{len(self.findings) - 1}" if len(self.findings) > 1 else ""
            return f"{self.findings[0].slug}{extra}"
        if self.problem is not None:
            return self.problem.short
        return "ok"

    def to_dict(self, lang: str = "en") -> dict[str, Any]:
        """The `-o json` entry of one Pod, findings in `lang`."""
        problem = self.problem
        entry: dict[str, Any] = {
            "name": self.pod.name,
            "namespace": self.pod.namespace,
            "node": self.pod.node_name or "",
            "container": self.container,
            "phase": self.pod.phase,
            "expected": self.expected.to_dict(),
            "seen": self.result.to_dict() if self.result is not None else None,
            "rdmaMode": self.seen.rdma_mode if self.seen else "unknown",
            "probe": {"status": "ok"}
            if problem is None
            else {
                "status": "failed",
                "reason": problem.kind,
                "short": problem.short,
                "message": problem.message,
                "values": problem.values,
            },
            "verdict": self.verdict,
            "findings": [f.to_dict(lang) for f in self.findings],
            "health": [
                {"name": h.name, "resourceID": h.resource_id, "health": h.health, "message": h.message}
                for h in self.health
            ],
        }
        if self.seen is not None:
            entry["seen"]["nicCount"] = self.seen.nic_count
            if self.seen.links:
                entry["seen"]["nics"] = [link.to_dict() for link in self.seen.links]
        return entry


def pod_entry(
    snapshot: Snapshot,
    pod: Pod,
    container: str,
    result: ProbeResult | None,
    problem: ProbeProblem | None,
) -> PodEntry:
    """One Pod's expectation, what was seen, and its findings, most severe first."""
    expected = expected_devices(snapshot, pod, container)
    findings = audit_allocation(snapshot, pod)
    seen = seen_devices(result, expected) if result is not None else None
    where = _where(pod, container, expected, snapshot)
    if seen is not None:
        findings = compare(pod, container, expected, seen, where) + findings
    state = next((s for s in pod.container_states if s.name == container), None)
    health = list(state.health) if state is not None else []
    unhealthy = device_unhealthy(where, health)
    if unhealthy is not None:
        findings.append(unhealthy)
    return PodEntry(pod, container, expected, result, seen, problem, ordered(dedupe(findings)), health)
