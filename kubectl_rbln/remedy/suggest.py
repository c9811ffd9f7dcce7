"""`suggest-rct` as a pure function: the strongest recipe the cluster satisfies, proven before it is printed.

Why: seed 001 tells the operator which recipe to apply when an attribute is missing, but only the
allocator knows whether the result fits. Every candidate here (strongest first) runs through the
same simulation as `why --with-rct`, and the first one under which the Pod fits on some node wins.
The candidates keep the RCT's name and NPU count and adapt only what the seeds allow: the NIC
selector's pciSubsystem term (to the RDMA NICs found, or removed) and, when both drivers publish
it, `dra.net/numaNode` for the NUMA match (ecosystem-facts.md 0.1).

One candidate goes further, and says so: when the recipe's NIC selector reads an attribute that no
NIC publishes (an older dranet without `pciSubsystem`), no edit of that term can match, so the
selector is rewritten on what the RDMA NICs do publish (`rdma`, `pciVendor`, `pciDevice`). It is
proven like the others but carries an `IntentChange`: the operator confirms those are the NICs meant.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from kubectl_rbln.catalog import Phrase, join_and, say
from kubectl_rbln.diagnose.context import is_device_pod, probe_pod
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.rules.attributes import devices_by_driver
from kubectl_rbln.diagnose.rules.layers import drivers_of
from kubectl_rbln.diagnose.why import PodDiagnosis, WhyOptions, diagnose_pod
from kubectl_rbln.domain import (
    CHART_RECIPES,
    NIC_DRIVER,
    NIC_SELECTOR,
    NPU_DRIVER,
    NUMA_ATTR,
    PCI_DEVICE_ATTR,
    PCI_SUBSYSTEM_ATTR,
    PCI_VENDOR_ATTR,
    RDMA_ATTR,
    REFERENCE_SUBSYSTEM,
    nic_model_selector,
    nic_selector,
)
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.model import Pod, ResourceClaimTemplate, Snapshot
from kubectl_rbln.dra.normalize_claims import normalize_template
from kubectl_rbln.dra.references import cached_references
from kubectl_rbln.recipes import API_VERSIONS, RecipeParams, recipe_devices, template_object


@dataclass(frozen=True, slots=True)
class IntentChange:
    """A NIC selector that no longer says what the recipe said: the operator must confirm the NICs.

    `unpublished`: the attributes the recipe's selector reads that no NIC publishes; `selected_by`:
    the (attribute, value) pins of the new selector besides `rdma == true`; `nics`: how many NICs it
    matches in the cluster.
    """

    unpublished: tuple[str, ...]
    selected_by: tuple[tuple[str, str], ...]
    nics: int


@dataclass(frozen=True, slots=True)
class Candidate:
    recipe: str
    params: RecipeParams
    adaptations: tuple[str | Phrase, ...] = ()  # how the recipe was adapted, each in the reader's words
    intent: IntentChange | None = None

    @property
    def label(self) -> str:
        return self.label_in("en")

    def label_in(self, lang: str) -> str:
        notes = [say(a, lang) for a in self.adaptations]
        return self.recipe + (f" ({'; '.join(notes)})" if notes else "")


WITHOUT_SUBSYSTEM = "suggest-adapt-no-subsystem"  # the adaptation that gives up the NIC model pin
# An error finding of the simulation, else a node's reason, else the Pod's diagnosis (its verdict).
Blocker = Finding | PodDiagnosis | str


@dataclass(slots=True)
class Attempt:
    candidate: Candidate
    fits_on: list[str]
    blockers: list[Blocker]
    findings: list[Finding] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return bool(self.fits_on)


@dataclass(frozen=True, slots=True)
class NoFix:
    """One reason no recipe fits: `kind` (no-rdma-nic | capacity | attempt | more) and its typed values."""

    kind: str
    values: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class CurrentRct:
    """What the stored RCT fixes for the suggestion: its name, NPU count and whether it asks for NICs."""

    name: str
    namespace: str
    exists: bool
    npu_count: int = 4
    nic_count: int = 2
    npu_request: str = "npu"
    nic_request: str = "nic"
    has_nic: bool = True


@dataclass(slots=True)
class SuggestResult:
    current: CurrentRct
    api_version: str
    attempts: list[Attempt]
    probes: list[str]  # the Pods the simulation ran for ("ns/name", virtual ones marked)
    chosen: Attempt | None = None
    template: dict[str, Any] | None = None
    no_fix: list[NoFix] = field(default_factory=list)


def current_rct(snapshot: Snapshot, namespace: str, name: str, *, claim: bool = False) -> CurrentRct:
    """The RCT (or, `claim`, the ResourceClaim a Pod names itself) whose name and counts are kept."""
    stored = snapshot.claim(namespace, name) if claim else snapshot.template(namespace, name)
    out = CurrentRct(name=name, namespace=namespace, exists=stored is not None)
    if stored is None:
        return out
    out.has_nic = False
    # an `All` request (or an impossible count, read as 0) keeps the recipe's count: a suggested RCT
    # never asks for 0 devices, which the API server refuses
    for request in stored.spec.requests:
        alternative = request.alternatives[0] if request.alternatives else None
        if alternative is None:
            continue
        drivers = drivers_of(snapshot.device_classes.get(alternative.device_class), alternative.device_class)
        if NPU_DRIVER in drivers:
            out.npu_count, out.npu_request = alternative.count or out.npu_count, request.name
        elif NIC_DRIVER in drivers:
            out.nic_count = alternative.count or out.nic_count
            out.nic_request, out.has_nic = request.name, True
    return out


def rdma_subsystems(snapshot: Snapshot) -> Counter[str]:
    """pciSubsystem values of the NICs dranet reports as RDMA-capable, most common first."""
    found: Counter[str] = Counter()
    for device in devices_by_driver(snapshot).get(NIC_DRIVER, []):
        if device.attributes.get(RDMA_ATTR) is True:
            found[str(device.attributes.get(PCI_SUBSYSTEM_ATTR, ""))] += 1
    return found


def numa_attributes(snapshot: Snapshot) -> list[str]:
    """The standard numaNode first, then any other `*/numaNode` that both drivers publish."""
    by_driver = devices_by_driver(snapshot)
    published = [
        {n for d in by_driver.get(driver, []) for n in d.attributes} for driver in (NPU_DRIVER, NIC_DRIVER)
    ]
    common = sorted(n for n in published[0] & published[1] if n.endswith("/numaNode") and n != NUMA_ATTR)
    return [NUMA_ATTR, *common]


def nic_variants(subsystems: Counter[str]) -> list[tuple[str, tuple[Phrase, ...]]]:
    """The recipe's selector, then its pciSubsystem term set to each RDMA NIC model found, then removed."""
    variants: list[tuple[str, tuple[Phrase, ...]]] = [(NIC_SELECTOR, ())]
    others = [value for value, _ in subsystems.most_common() if value and value != REFERENCE_SUBSYSTEM]
    for value in others:
        variants.append((nic_selector(value), (Phrase("suggest-adapt-subsystem", {"value": value}),)))
    if len(subsystems) > 1 or (others and REFERENCE_SUBSYSTEM not in subsystems):
        variants.append((nic_selector(None), (Phrase(WITHOUT_SUBSYSTEM),)))
    return variants


def unpublished_nic_attributes(snapshot: Snapshot) -> tuple[str, ...]:
    """The attributes the recipe's NIC selector reads that no NIC of the cluster publishes."""
    nics = devices_by_driver(snapshot).get(NIC_DRIVER, [])
    published = {name for device in nics for name in device.attributes}
    return tuple(sorted(a for a in cached_references(NIC_SELECTOR).attributes if a not in published))


def intent_variants(snapshot: Snapshot) -> list[tuple[str, tuple[Phrase, ...], IntentChange]]:
    """When a term of the NIC selector reads what no NIC publishes: one selector per RDMA NIC model
    (pciVendor and pciDevice, most common first), on what those NICs do publish."""
    missing = unpublished_nic_attributes(snapshot)
    if not missing or RDMA_ATTR in missing:
        return []
    models: Counter[tuple[tuple[str, str], ...]] = Counter()
    for device in devices_by_driver(snapshot).get(NIC_DRIVER, []):
        if device.attributes.get(RDMA_ATTR) is True:
            values = ((a, device.attributes.get(a)) for a in (PCI_VENDOR_ATTR, PCI_DEVICE_ATTR))
            models[tuple((a, v) for a, v in values if isinstance(v, str) and v)] += 1
    variants: list[tuple[str, tuple[Phrase, ...], IntentChange]] = []
    short = ", ".join(a.split("/", 1)[1] for a in missing)
    for pins, count in models.most_common():
        on = join_and([a.split("/", 1)[1] for a, _ in pins]) or Phrase("suggest-rdma-only")
        note = Phrase("suggest-adapt-intent", {"on": on, "short": short})
        variants.append((nic_model_selector(pins), (note,), IntentChange(missing, pins, count)))
    return variants


def candidates(snapshot: Snapshot, current: CurrentRct, only: str | None = None) -> list[Candidate]:
    """Strongest first: numa-aligned, numa-unaligned, npu-only (for an RCT without NICs, or on request)."""
    base = RecipeParams(
        npu_count=current.npu_count,
        nic_count=current.nic_count,
        npu_request=current.npu_request,
        nic_request=current.nic_request,
    )
    subsystems = rdma_subsystems(snapshot)
    found: list[Candidate] = []
    if subsystems and current.has_nic:
        for numa in numa_attributes(snapshot):
            numa_note: tuple[str | Phrase, ...] = () if numa == NUMA_ATTR else (f"matchAttribute {numa}",)
            for selector, notes in nic_variants(subsystems):
                found.append(
                    Candidate(
                        "numa-aligned",
                        replace(base, nic_selector=selector, numa_attribute=numa),
                        numa_note + notes,
                    )
                )
            for selector, notes, intent in intent_variants(snapshot):
                params = replace(base, nic_selector=selector, numa_attribute=numa)
                found.append(Candidate("numa-aligned", params, numa_note + notes, intent))
        for selector, notes in nic_variants(subsystems):
            found.append(Candidate("numa-unaligned", replace(base, nic_selector=selector), notes))
        for selector, notes, intent in intent_variants(snapshot):
            found.append(Candidate("numa-unaligned", replace(base, nic_selector=selector), notes, intent))
    if not current.has_nic or only == "npu-only":
        found.append(Candidate("npu-only", base))
    return [c for c in found if only is None or c.recipe == only]


def virtual_pod(pod: Pod) -> Pod:
    """A copy of a Running Pod as a new replica: Pending, unscheduled, its claims not yet created."""
    return replace(
        pod,
        name=f"{pod.name}-replica",
        uid="",
        phase="Pending",
        node_name=None,
        claim_statuses={},
        conditions={},
        container_states=[],
        raw={},
    )


def _uses(pod: Pod, rct: str) -> bool:
    return any(ref.resource_claim_template_name == rct for ref in pod.resource_claims)


def probe_pods(snapshot: Snapshot, namespace: str, rct: str, pod: Pod | None = None) -> list[tuple[Pod, str]]:
    """The Pods to verify with: the named one, else the Pending Pods using the RCT, else a new replica."""
    if pod is not None:
        fresh = pod.phase == "Pending" and not pod.node_name
        return [(pod, pod.key) if fresh else (virtual_pod(pod), f"{pod.key} (as a new replica)")]
    users = [p for p in snapshot.pods if p.namespace == namespace and is_device_pod(p) and _uses(p, rct)]
    pending = [p for p in users if p.phase == "Pending" and not p.node_name]
    if pending:
        return [(p, p.key) for p in pending]
    if users:
        first = sorted(users, key=lambda p: p.name)[0]
        return [(virtual_pod(first), f"{first.key} (as a new replica)")]
    return [(probe_pod(namespace, rct), f"{namespace}/{rct}-probe (a Pod that only uses the RCT)")]


def _blockers(diagnosis: PodDiagnosis) -> list[Blocker]:
    errors: list[Blocker] = [f for f in diagnosis.findings if f.severity == "error"]
    if errors:
        return errors[:3]
    reasons: list[Blocker] = [
        f"{r['name']}: {r.get('reason', '')}" for r in diagnosis.nodes if r.get("reason")
    ]
    return reasons[:3] or [diagnosis]  # its verdict, in the reader's language


def _same(a: Blocker, b: Blocker) -> bool:
    """Equal blockers (a diagnosis only to itself: comparing two would compare their snapshots)."""
    if isinstance(a, PodDiagnosis) or isinstance(b, PodDiagnosis):
        return a is b
    return a == b


def representatives(pods: list[Pod]) -> list[Pod]:
    """One Pod per controller and spec: Pending replicas of one ReplicaSet ask the simulation the same
    question (the same requests, selectors, affinity and tolerations on the same snapshot), so the
    first answers for all (20 Pending decode Pods: one simulation, not 20). A Pod without an owner
    stands for itself."""
    chosen: dict[Any, Pod] = {}
    for pod in pods:
        if not pod.owner_name or pod.node_name:
            key: Any = ("pod", pod.namespace, pod.name)
        else:
            key = (
                pod.namespace,
                pod.owner_kind,
                pod.owner_name,
                repr(pod.resource_claims),
                repr(pod.node_selector),
                repr(pod.affinity),
                repr(pod.tolerations),
                repr([(c.name, c.requests, c.limits, c.claims) for c in pod.containers]),
                tuple(sorted(pod.claim_statuses)),
            )
        chosen.setdefault(key, pod)
    return list(chosen.values())


def verify(
    snapshot: Snapshot, template: ResourceClaimTemplate, pods: list[Pod], features: Features
) -> tuple[list[str], list[Blocker], list[Finding]]:
    """The simulation of `why --with-rct`: (nodes where every Pod's devices fit, blockers, findings)."""
    options = WhyOptions(features=features, with_rct=template)
    fit_sets: list[set[str]] = []
    blockers: list[Blocker] = []
    findings: list[Finding] = []
    full_fit = False
    for pod in representatives(pods):
        diagnosis = diagnose_pod(snapshot, pod, options)
        simulation = diagnosis.context.simulation  # typed: no string in a node row is parsed back
        nodes = set(simulation.fitting) | set(simulation.fits_elsewhere)
        full_fit = full_fit or bool(simulation.fitting)
        if not nodes:
            blockers += [b for b in _blockers(diagnosis) if not any(_same(b, x) for x in blockers)]
            findings += diagnosis.findings
        fit_sets.append(nodes)
    if not full_fit or not all(fit_sets):
        return [], blockers, findings
    return sorted(set().union(*fit_sets)), blockers, findings


def claim_object(template: dict[str, Any]) -> dict[str, Any]:
    """The ResourceClaim of a suggested RCT's name and spec (a claim's spec is an RCT's spec.spec)."""
    return {
        "apiVersion": template["apiVersion"],
        "kind": "ResourceClaim",
        "metadata": dict(template["metadata"]),
        "spec": template["spec"]["spec"],
    }


def served_version(snapshot: Snapshot) -> str:
    version = snapshot.resource_api_version
    return version if version in API_VERSIONS else "v1"


def suggest(
    snapshot: Snapshot,
    namespace: str,
    rct: str,
    *,
    features: Features,
    pod: Pod | None = None,
    only: str | None = None,
    claim: bool = False,
) -> SuggestResult:
    """Try the candidates strongest first; the first one the simulation proves is the suggestion.

    `claim`: `rct` names a ResourceClaim that Pods name directly; the suggestion is a ResourceClaim of
    that name, proven with a Pod that gets a claim of its spec (claim_object)."""
    if only is not None and only not in CHART_RECIPES:
        raise ValueError(f"unknown recipe {only!r}")
    current = current_rct(snapshot, namespace, rct, claim=claim)
    api_version = served_version(snapshot)
    if claim:
        pods = [(probe_pod(namespace, rct), f"{namespace}/{rct}-probe (a Pod with a claim of this spec)")]
    else:
        pods = probe_pods(snapshot, namespace, rct, pod)
    result = SuggestResult(current=current, api_version=api_version, attempts=[], probes=[p[1] for p in pods])
    for candidate in candidates(snapshot, current, only):
        obj = template_object(rct, namespace, recipe_devices(candidate.recipe, candidate.params), api_version)
        fits_on, blockers, findings = verify(
            snapshot, normalize_template(obj), [p for p, _ in pods], features
        )
        attempt = Attempt(candidate, fits_on, blockers, findings)
        result.attempts.append(attempt)
        if attempt.fits:
            result.chosen, result.template = attempt, claim_object(obj) if claim else obj
            return result
    result.no_fix = no_fix_reasons(snapshot, current, result.attempts, only)
    return result


def no_fix_reasons(
    snapshot: Snapshot, current: CurrentRct, attempts: list[Attempt], only: str | None
) -> list[NoFix]:
    """Why no recipe fits, as typed reasons the renderer words: the RDMA driver, capacity, each try."""
    reasons = []
    if current.has_nic and not rdma_subsystems(snapshot) and only != "npu-only":
        nics = len(devices_by_driver(snapshot).get(NIC_DRIVER, []))
        reasons.append(NoFix("no-rdma-nic", {"nics": nics}))
    slugs = {f.slug for a in attempts for f in a.findings}
    if "devices-exhausted" in slugs:
        reasons.append(NoFix("capacity"))
    reasons += [NoFix("attempt", {"attempt": attempt}) for attempt in attempts[:4]]
    if len(attempts) > 4:
        reasons.append(NoFix("more", {"count": len(attempts) - 4}))
    return reasons
