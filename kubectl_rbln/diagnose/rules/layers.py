"""The four claim layers of seed 001's table, each checked from the objects themselves.

1 DeviceClass, 2 ResourceSlice per node and driver, 3 the RCT, 4 the generated ResourceClaim;
and under them the DRA API itself and the lists we could not read. Events expire after an hour;
these rules do not need them (claim-not-created also reads the claim controller's events).
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Iterator
from typing import Any

from kubectl_rbln.catalog import Names, Phrase, Said
from kubectl_rbln.diagnose.context import PodContext, is_device_pod
from kubectl_rbln.diagnose.events import classify_event
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.placement import exclusions
from kubectl_rbln.diagnose.quoting import quoted_or_expected
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.diagnose.simulation import SIMULATION_KINDS
from kubectl_rbln.domain import (
    CLASS_CREATORS,
    KUBELET_PLUGINS,
    NIC_CLASS,
    NIC_DRIVER,
    NPU_CLASS,
    NPU_DRIVER,
    REFERENCE_CLASSES,
)
from kubectl_rbln.dra.model import DeviceClass, Node, ResourceSlice, Snapshot, SourceProblem, Workload
from kubectl_rbln.dra.references import class_drivers
from kubectl_rbln.selectors import node_selector_matches


def _creator(class_name: str) -> str:
    """Who makes a DeviceClass (seed 001's table): the operator by name, else in the reader's words."""
    if class_name == NIC_CLASS:
        return Said(Phrase("creator-nic-class"))
    if class_name == NPU_CLASS:
        return Said(Phrase("creator-npu-class"))
    return CLASS_CREATORS.get(class_name) or Said(Phrase("creator-driver"))


# Lists whose absence weakens a `why` answer (exec probes and logs of other Pods do not).
RESOURCE_NAMES = {
    "Node": "nodes",
    "Pod": "pods",
    "Event": "events",
    "ResourceClaim": "resourceclaims.resource.k8s.io",
    "ResourceClaimTemplate": "resourceclaimtemplates.resource.k8s.io",
    "DeviceClass": "deviceclasses.resource.k8s.io",
    "ResourceSlice": "resourceslices.resource.k8s.io",
    "DeviceTaintRule": "devicetaintrules.resource.k8s.io",
}
# what the stages of a Pod's life read besides (diagnose/lifecycle.py): a refused list of them matters
# to a Pod that is stuck, once per kind
STAGE_RESOURCE_NAMES = {
    "ReplicaSet": "replicasets.apps",
    "Deployment": "deployments.apps",
    "StatefulSet": "statefulsets.apps",
    "DaemonSet": "daemonsets.apps",
    "Job": "jobs.batch",
    "CronJob": "cronjobs.batch",
    "Lease": "leases.coordination.k8s.io",
    "ResourceQuota": "resourcequotas",
    "LimitRange": "limitranges",
}
NO_DEVICES_KINDS = ("no-devices", "incomplete-pool", "invalid-pool")
# problem codes of a live list that broke a bound of the read (cluster/bounded.py), not a refusal
UNREAD_CODES = ("timeout", "too-large", "encoding")


def requested_classes(ctx: PodContext) -> list[tuple[str, str]]:
    """(request name, class name) for every alternative of every claim."""
    pairs: list[tuple[str, str]] = []
    for claim in ctx.claims:
        spec = claim.spec
        if spec is None:
            continue
        for request in spec.requests:
            for alternative in request.alternatives:
                name = f"{request.name}/{alternative.name}" if alternative.name else request.name
                pairs.append((name, alternative.device_class))
    return pairs


def drivers_of(device_class: DeviceClass | None, class_name: str) -> set[str]:
    """The drivers a class selects (`device.driver == "..."`), else the reference guess by name."""
    if device_class is not None:
        found = class_drivers(device_class.selectors)
        if found:
            return found
    guess = REFERENCE_CLASSES.get(class_name)
    return {guess} if guess else set()


@rule(
    "layers.dra-api",
    emits=("dra-api-unavailable",),
    suppresses={
        "device-class-missing": None,
        "claim-template-missing": None,
        "claim-not-created": None,
        "claim-not-allocated": None,
        "driver-slices-missing": None,
    },
    blocks_simulation=True,
)
def dra_api_unavailable(ctx: PodContext) -> Iterator[Finding]:
    problem = ctx.snapshot.problem_for("resource.k8s.io")
    if problem is None or not ctx.pod.resource_claims:
        return
    values = {"version": ctx.snapshot.server_version or "unknown"}
    evidence = {"serverVersion": ctx.snapshot.server_version, "problem": problem.message}
    yield Finding("dra-api-unavailable", values, evidence)


@rule(
    "layers.device-class",
    emits=("device-class-missing",),
    suppresses={"claim-not-allocated": None, "driver-slices-missing": None},
    blocks_simulation=True,
)
def device_class_missing(ctx: PodContext) -> Iterator[Finding]:
    """A request names a DeviceClass that does not exist.

    Only the classes the Pod's own claims name: when no claim spec resolves (the RCT or the claim is
    missing), that missing layer is the finding, and no reference class is guessed (issue 12, 4a).
    """
    yield from missing_class_findings(ctx, requested_classes(ctx))


def missing_class_findings(ctx: PodContext, pairs: list[tuple[str, str]]) -> Iterator[Finding]:
    """device-class-missing for each (request, class) pair whose class does not exist; `check`
    passes the reference pair itself when the chart's RCT is not there yet."""
    classes = ctx.snapshot.device_classes
    missing: dict[str, list[str]] = {}
    for request, class_name in pairs:
        if class_name and class_name not in classes:
            missing.setdefault(class_name, []).append(request)
    for class_name, requests in missing.items():
        values = ctx.values(**{"class": class_name, "request": requests}, **class_kind(class_name))
        evidence = {
            "deviceClass": class_name,
            "requests": requests,
            "classesPresent": sorted(classes),
            "createdBy": _creator(class_name),
            **quoted_or_expected(
                ctx,
                f"device class {class_name} does not exist",
                f"request {requests[0]}: device class {class_name} does not exist",
            ),
        }
        yield Finding("device-class-missing", values, evidence)


def class_kind(class_name: str) -> dict[str, bool]:
    """Which fix a missing class needs: the NPU Operator's, dranet's (a class you create), or neither
    (a name of no reference class: likely a typo in the claim, or another driver's class)."""
    return {
        "npu_class": class_name == NPU_CLASS,
        "nic_class": class_name == NIC_CLASS,
        "other_class": class_name not in REFERENCE_CLASSES,
    }


@rule(
    "layers.claim-template",
    emits=("claim-template-missing",),
    suppresses={"claim-not-created": None, "claim-not-allocated": None},
    blocks_simulation=True,
)
def claim_template_missing(ctx: PodContext) -> Iterator[Finding]:
    """The Pod names an RCT that its namespace does not have (and we could read the list)."""
    pod = ctx.pod
    if ctx.snapshot.problem_for("ResourceClaimTemplate"):
        return  # source-degraded says we could not look
    for claim in ctx.claims:
        name = claim.ref.resource_claim_template_name
        if not name or claim.template is not None or claim.claim is not None:
            continue
        present = sorted(t.name for t in ctx.snapshot.templates if t.namespace == pod.namespace)
        # RCTs are namespaced: the same name elsewhere is the likeliest mistake (issue 12, 4b)
        elsewhere = sorted({t.namespace for t in ctx.snapshot.templates if t.name == name} - {pod.namespace})
        evidence = {
            "podClaim": claim.ref.name,
            "resourceClaimTemplate": f"{pod.namespace}/{name}",
            "templatesInNamespace": present,
            **quoted_or_expected(
                ctx,
                f'resourceclaimtemplate.resource.k8s.io "{name}" not found',
                f"PodResourceClaim {claim.ref.name}: resource claim template "
                f'"{name}": resourceclaimtemplate.resource.k8s.io "{name}" not found',
            ),
        }
        if elsewhere:
            evidence["sameNameIn"] = [f"{ns}/{name}" for ns in elsewhere]
            values = ctx.values(rct=name, elsewhere=Names(elsewhere), source=elsewhere[0])
            yield Finding("claim-template-missing", values, evidence, case="other-namespace")
            continue
        yield Finding("claim-template-missing", ctx.values(rct=name), evidence, recipe="numa-aligned")


@rule(
    "layers.claim-created",
    emits=("claim-not-created",),
    suppresses={"claim-not-allocated": None},
    blocks_simulation=True,
)
def claim_not_created(ctx: PodContext) -> Iterator[Finding]:
    """The claim the Pod waits for does not exist, or the claim controller said why it could not make it."""
    pod = ctx.pod
    for claim in ctx.claims:
        ref = claim.ref
        refused = _controller_event(ctx, ref.name)
        if refused and not ref.resource_claim_name:
            continue  # the controller runs and said why it refused: that stage's evidence, quoted
        if (
            claim.claim is None
            and claim.spec_override is None
            and (claim.template is not None or ref.resource_claim_name)
        ):
            # the scheduler holds the Pod in PreEnqueue and records no event (dra-facts-136.md): only
            # the controller's own event is quoted, when there is one
            evidence = {
                "podClaim": ref.name,
                "statusRecorded": claim.status_recorded,
                "claimName": claim.claim_name or f"{pod.name}-{ref.name}-<suffix>",
            }
            # a named claim nobody created is not the controller's to make (case not-found)
            case = "not-found" if ref.resource_claim_name else None
            values = ctx.values(claim=claim.claim_name or ref.name)
            yield Finding("claim-not-created", values, evidence, case=case)
            return


def _controller_event(ctx: PodContext, pod_claim: str) -> dict[str, str]:
    """The claim controller's FailedResourceClaimCreation event for `pod_claim`, quoted, if any."""
    for event in reversed(ctx.events):
        parsed = classify_event(event)
        if parsed.kind == "claim-creation" and parsed.fields.get("pod_claim") in (None, pod_claim):
            dra = next(iter(parsed.dra), None)
            return {"event": f"{event.reason}: {event.message}", **({"code": dra.code} if dra else {})}
    return {}


def slice_relevant(slice_: ResourceSlice, node: Node) -> bool:
    """dra-facts.md 2.3: nodeName, allNodes, or a nodeSelector matching the node."""
    if slice_.node_name:
        return slice_.node_name == node.name
    if slice_.all_nodes:
        return True
    if slice_.node_selector:
        return node_selector_matches(slice_.node_selector, node.name, node.labels)
    if slice_.per_device_node_selection:
        return any(d.node_name == node.name for d in slice_.devices)
    return False


def slices_of(snapshot: Snapshot, driver: str) -> list[ResourceSlice]:
    by_driver = snapshot.memo("slices-by-driver", lambda: _group_slices(snapshot.slices))
    return by_driver.get(driver, [])


def _group_slices(slices: list[ResourceSlice]) -> dict[str, list[ResourceSlice]]:
    out: dict[str, list[ResourceSlice]] = {}
    for slice_ in slices:
        out.setdefault(slice_.driver, []).append(slice_)
    return out


def candidate_nodes(ctx: PodContext) -> list[Node]:
    """Nodes the Pod could run on, devices aside."""
    return [node for node in ctx.snapshot.nodes.values() if not exclusions(ctx.pod, node)]


def _nodes_with_devices(slices: list[ResourceSlice], nodes: list[Node], node_names: set[str]) -> set[str]:
    """Nodes that see at least one device: node-local slices by name, the others by selector."""
    found = {s.node_name for s in slices if s.any_devices() and s.node_name in node_names}
    shared = [s for s in slices if s.any_devices() and not s.node_name]
    if shared:
        found |= {n.name for n in nodes for s in shared if slice_relevant(s, n)}
    return {name for name in found if name}


def nodes_lacking(snapshot: Snapshot, driver: str, nodes: list[Node]) -> list[str]:
    """Of `nodes`, those that see no device of `driver` (check: every NPU node must have both)."""
    slices = [s for s in slices_of(snapshot, driver) if s.any_devices()]
    local = {s.node_name for s in slices if s.node_name}
    shared = [s for s in slices if not s.node_name]
    return [n.name for n in nodes if n.name not in local and not any(slice_relevant(s, n) for s in shared)]


def slices_missing(
    driver: str, nodes: list[str], evidence: dict[str, Any], case: str | None = None, **values: Any
) -> Finding:
    """The one constructor of driver-slices-missing: why, check (item 2) and attrs all call it.

    `node` is "" when no node is known (no NPU node at all): the node-side checks are then left out."""
    shown = {
        "driver": driver,
        "nodes": Names(nodes),
        "node": nodes[0] if nodes else "",
        **driver_values([driver]),
        **values,
    }
    return Finding("driver-slices-missing", shown, evidence, case=case)


def driver_values(drivers: list[str]) -> dict[str, Any]:
    """What the node-side checks of a missing driver need: which driver, and where its kubelet plugin
    runs (`driver_namespace`, `plugin_label`: `kubectl -n NS get pods -l LABEL` lists it per node)."""
    plugins = [KUBELET_PLUGINS[d] for d in drivers if d in KUBELET_PLUGINS]
    out: dict[str, Any] = {
        "npu_driver": NPU_DRIVER in drivers,
        "nic_driver": NIC_DRIVER in drivers,
        "driver_namespace": "",
    }
    if len(plugins) == 1:
        out |= {"driver_namespace": plugins[0].namespace, "plugin_label": plugins[0].label}
    return out


def _counts_text(workload: Workload) -> str:
    def known(count: int | None) -> str:
        return "?" if count is None else str(count)

    text = f"desired {known(workload.desired)}, ready {known(workload.ready)}"
    return text + (f", unavailable {workload.unavailable}" if workload.unavailable else "")


def driver_workload_evidence(snapshot: Snapshot, driver: str) -> dict[str, Any]:
    """What the driver's own DaemonSet says (desired, ready, unavailable) and its warnings, quoted: what
    keeps a driver from running, and so from publishing (the reads of issue 21, 5)."""
    from kubectl_rbln.diagnose.lifecycle import event_quote, events_of  # noqa: PLC0415

    plugin = KUBELET_PLUGINS.get(driver)
    if plugin is None:
        return {}
    sets = [
        w
        for w in snapshot.workloads
        if w.kind == "DaemonSet" and w.namespace == plugin.namespace and w.name.startswith(plugin.name_prefix)
    ]
    if not sets:
        return {}
    status = {w.key: _counts_text(w) for w in sets}
    quoted = [
        event_quote(e).line()
        for w in sets
        for e in events_of(snapshot, w.namespace, "DaemonSet", w.name)
        if e.type == "Warning"
    ]
    return {"driverDaemonSets": status, **({"quoted": quoted} if quoted else {})}


def _layer_gaps(ctx: PodContext) -> Iterator[Finding]:
    """No slice (or only empty ones) of a needed driver on any node the Pod could use."""
    if ctx.pod.node_name or not ctx.unallocated or ctx.snapshot.problem_for("ResourceSlice"):
        return  # a scheduled Pod, or one whose claims are allocated, needs no slice any more
    nodes = candidate_nodes(ctx)
    if not nodes:
        return
    drivers: dict[str, str] = {}
    for _, class_name in requested_classes(ctx):
        for driver in drivers_of(ctx.snapshot.device_classes.get(class_name), class_name):
            drivers.setdefault(driver, class_name)
    node_names = {n.name for n in nodes}
    for driver, class_name in sorted(drivers.items()):
        slices = slices_of(ctx.snapshot, driver)
        if _nodes_with_devices(slices, nodes, node_names):
            continue
        empty = sorted({s.node_name for s in slices if not s.any_devices() and s.node_name in node_names})
        elsewhere = sorted({s.node_name for s in slices if s.any_devices() and s.node_name} - node_names)
        evidence = {
            "driver": driver,
            "deviceClass": class_name,
            "nodesConsidered": sorted(n.name for n in nodes),
            "slicesWithoutDevices": empty,
            "slicesOnOtherNodes": elsewhere,
        }
        shown = empty or sorted(n.name for n in nodes)
        evidence.update(driver_workload_evidence(ctx.snapshot, driver))
        yield slices_missing(driver, shown, evidence, **ctx.values())


def _simulated_gaps(ctx: PodContext) -> Iterator[Finding]:
    """The allocator found no (complete, valid) pool of a needed driver on the nodes it tried."""
    from kubectl_rbln.diagnose.rules.allocation import failure_evidence  # noqa: PLC0415

    simulation = ctx.simulation
    if not simulation.ran:
        return  # nothing was simulated: no node met a missing pool
    nodes = [
        n for kind, found in simulation.failures_by_kind().items() if kind in NO_DEVICES_KINDS for n in found
    ]
    if nodes:
        evidence, values = failure_evidence(ctx, nodes)
        drivers = values.get("driver") or []
        values.update(driver_values(list(drivers) if isinstance(drivers, list) else [drivers]))
        yield Finding("driver-slices-missing", values, evidence)


@rule("layers.driver-slices", emits=("driver-slices-missing",))
def driver_slices_missing(ctx: PodContext) -> Iterator[Finding]:
    """From the slices themselves first; else from what the simulation met on the nodes."""
    found = list(_layer_gaps(ctx))
    yield from found or _simulated_gaps(ctx)


@rule("layers.source-degraded", emits=("source-degraded",))
def source_degraded(ctx: PodContext) -> Iterator[Finding]:
    """A list the cluster forbade: the rules that needed it ran on partial data."""
    stuck = ctx.life is not None and ctx.life.stuck is not None
    said: set[str] = set()
    for problem in ctx.snapshot.problems:
        if problem.code == "malformed":
            if _depends_on(ctx, problem.kind, problem.name):
                values = {"kind": problem.kind, "name": problem.name, "message": problem.message}
                evidence = {"kind": problem.kind, "name": problem.name, "code": problem.code}
                yield Finding("source-degraded", ctx.values(**values), evidence, case="malformed")
            continue
        if problem.code == "missing":
            yield missing_finding(problem)
            continue
        if problem.kind in said:
            continue
        if blinds(ctx, problem):
            said.add(problem.kind)
            yield unchecked_finding(problem, "why", ctx.pod.namespace, ctx.pod.name)
            continue
        resource = RESOURCE_NAMES.get(problem.kind)
        if resource is None and problem.kind in STAGE_RESOURCE_NAMES and stuck and problem.kind not in said:
            resource = STAGE_RESOURCE_NAMES[problem.kind]
            said.add(problem.kind)
        if resource is None:
            continue
        values = {"kind": problem.kind, "message": problem.message, "resource": resource}
        evidence = {"kind": problem.kind, "code": problem.code, "message": problem.message}
        if problem.code in UNREAD_CODES:  # not a permission: a list too slow, too large or compressed
            yield Finding("source-degraded", ctx.values(**values), evidence, case="unread")
            continue
        yield Finding("source-degraded", values, evidence)


def malformed_findings(snapshot: Snapshot, kind: str, namespace: str, name: str) -> list[Finding]:
    """The `malformed` errors of one object a report rests on (the RCT `attrs` compares, `topo` lays
    out): an impossible count is named and is an error, never a warning beside a verdict."""
    key = f"{namespace}/{name}"
    return [
        Finding(
            "source-degraded",
            {"kind": kind, "name": key, "message": p.message, "namespace": namespace},
            {"kind": kind, "name": key, "code": p.code},
            case="malformed",
        )
        for p in snapshot.problems
        if p.code == "malformed" and p.kind == kind and p.name == key
    ]


def missing_finding(problem: SourceProblem) -> Finding:
    """A list that came back with nothing where something must be (cluster/read_gaps.py), or with a
    wrong answer (a Status, another kind): an error, whatever else was found."""
    resource = RESOURCE_NAMES.get(problem.kind) or STAGE_RESOURCE_NAMES.get(problem.kind) or problem.kind
    values = {"kind": problem.kind, "message": problem.message, "resource": resource}
    evidence = {"kind": problem.kind, "code": problem.code, "message": problem.message}
    return Finding("source-degraded", values, evidence, case="missing")


def refused_kinds(snapshot: Snapshot) -> dict[str, SourceProblem]:
    """Kind -> the first problem that says its list was refused or not read whole (no list at all)."""
    return {kind: p for kind in RESOURCE_NAMES if (p := snapshot.refused(kind)) is not None}


def blinds(ctx: PodContext, problem: SourceProblem) -> bool:
    """A refused list this Pending device Pod's verdict rests on: without slices, classes or Nodes no
    node can be simulated, so any cause named would be one drawn from nothing read."""
    pending = ctx.pod.phase == "Pending" and not ctx.pod.node_name and is_device_pod(ctx.pod)
    return pending and problem.kind in SIMULATION_KINDS and ctx.snapshot.refused(problem.kind) is problem


def reread_lines(command: str, namespace: str | None, pod: str = "") -> list[str]:
    """The same diagnosis on a bundle read with more time: `dump`, then `command -f` on it."""
    scope = "-A" if namespace is None else f"-n {shlex.quote(namespace)}"
    again = f"kubectl rbln {command} -f bundle.json {scope}" + (f" {shlex.quote(pod)}" if pod else "")
    return [f"kubectl rbln dump {scope} --request-timeout 5m > bundle.json", again]


def unchecked_finding(problem: SourceProblem, command: str, namespace: str | None, pod: str = "") -> Finding:
    """A refused list a verdict rests on: an error (case `unchecked`), never a warning beside a guess.
    `command`, `namespace` and `pod` say what to run again once the list can be read."""
    kind = problem.kind
    values = {
        "kind": kind,
        "message": problem.message,
        "resource": RESOURCE_NAMES[kind],
        "code": problem.code,
        "reread": reread_lines(command, namespace, pod),
    }
    evidence = {"kind": kind, "code": problem.code, "message": problem.message}
    case = "unchecked" if problem.code == "forbidden" else "unchecked-unread"
    return Finding("source-degraded", values, evidence, case=case)


def source_findings(
    snapshot: Snapshot, blind: Collection[str] = (), command: str = "why", namespace: str | None = None
) -> list[Finding]:
    """The findings of a read as a whole, for a report with no Pod to carry them: `missing` lists, and
    each refused list of the kinds in `blind`, the ones the report's own verdict rests on (`why`'s "no
    stuck device Pod" rests on the Pod list, `check`'s items on theirs): not read is not none, so the
    run is no all-clear (case `unchecked`, an error)."""
    findings = [missing_finding(p) for p in snapshot.problems if p.code == "missing"]
    refused = refused_kinds(snapshot)
    blinding = [refused[kind] for kind in refused if kind in blind]
    return findings + [unchecked_finding(problem, command, namespace) for problem in blinding]


# Objects every Pod's simulation reads: a malformed one can hide the devices or the node that fit.
CLUSTER_WIDE_KINDS = ("ResourceSlice", "DeviceClass", "Node", "DeviceTaintRule")


def _depends_on(ctx: PodContext, kind: str, name: str) -> bool:
    """A malformed object this Pod's verdict reads: the Pod, its claims and RCTs, slices, classes, nodes."""
    pod = ctx.pod
    if kind in CLUSTER_WIDE_KINDS:
        return is_device_pod(pod) or pod.phase == "Pending"
    namespace, _, short = name.rpartition("/")
    if namespace != pod.namespace:
        return False
    if kind == "Pod":
        return short == pod.name
    if kind == "ResourceClaim":
        names = {c.claim_name for c in ctx.claims} | {n for n in pod.claim_statuses.values() if n}
        owned = any(c.name == short and c.owner_pod == pod.name for c in ctx.snapshot.claims)
        return short in names or owned
    if kind == "ResourceClaimTemplate":
        return short in {r.resource_claim_template_name for r in pod.resource_claims}
    return False
