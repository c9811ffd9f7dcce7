"""What every `why` check needs to know about one Pod: its claims, layer by layer.

A Pod's claim goes through four layers (seed 001's table): the DeviceClasses,
the drivers' ResourceSlices, the ResourceClaimTemplate, and the generated
ResourceClaim in `status.resourceClaimStatuses`. `PodClaim` resolves one
`spec.resourceClaims[]` entry through them, once, for all checks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from kubectl_rbln.catalog import Phrase, Said
from kubectl_rbln.domain import DEVICE_RESOURCE_PREFIXES
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.model import (
    ClaimSpec,
    DeviceClass,
    ExactRequest,
    Pod,
    PodClaimRef,
    Request,
    ResourceClaim,
    ResourceClaimTemplate,
    Snapshot,
)
from kubectl_rbln.recipes import API_VERSIONS

if TYPE_CHECKING:
    from kubectl_rbln.diagnose.events import SchedulingMessage
    from kubectl_rbln.diagnose.findings import Finding
    from kubectl_rbln.diagnose.simulation import SimulationFacts
    from kubectl_rbln.diagnose.stage_types import Life
    from kubectl_rbln.dra.model import Event


_T = TypeVar("_T")


class once(Generic[_T]):  # noqa: N801 - used as a decorator, like functools.cached_property
    """`functools.cached_property` without its lock (Python 3.11 takes an RLock on every first read):
    computed on the first read and kept in the instance's `__dict__`, which later reads find first.
    `check` makes three per Pod, 40,000 Pods at 20,000 nodes; a PodContext is read by one thread."""

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> _T:
        if instance is None:
            return self  # type: ignore[return-value]
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


@dataclass(slots=True)
class PodClaim:
    ref: PodClaimRef
    template: ResourceClaimTemplate | None  # the RCT, when the entry names one and it exists
    claim: ResourceClaim | None  # the generated or named claim, when it exists
    claim_name: str | None  # what the claim is (or would be) called
    status_recorded: bool  # the claim controller wrote status.resourceClaimStatuses for it
    spec_override: ClaimSpec | None = None  # `why --with-rct`: the spec a re-created claim would have
    # The claim the scheduler builds for DRA-backed extended resources (KEP-5004), and for each
    # resource it allocates through DRA, the DeviceClass that maps it.
    scheduler_built: bool = False
    extended: dict[str, str] = field(default_factory=dict)
    hypothetical: bool = False  # `why --with-rct`: the claim a re-created Pod would get, never stale

    @property
    def spec(self) -> ClaimSpec | None:
        """The spec the scheduler allocates: the claim's own, else the template's (a virtual claim)."""
        if self.spec_override is not None:
            return self.spec_override
        if self.claim is not None:
            return self.claim.spec
        return self.template.spec if self.template is not None else None

    @property
    def allocated(self) -> bool:
        return self.claim is not None and self.claim.allocation is not None

    @property
    def drift(self) -> tuple[str, ...]:
        """Why a claim generated from the Pod's RCT no longer is that RCT (issue 13, 1): ("spec",) when
        the specs differ, ("recreated",) when the RCT was created after the claim; () when it still is.

        The resource-claim controller generates a claim once, when the Pod is created, and never
        updates it (kubernetes/kubernetes#129362): a changed RCT reaches only re-created Pods."""
        claim, template = self.claim, self.template
        if (
            claim is None
            or template is None
            or self.ref.resource_claim_name
            or self.scheduler_built
            or claim.owner_pod is None
            or self.hypothetical
        ):
            return ()
        reasons = []
        if not _same_spec(claim.spec, template.spec):
            reasons.append("spec")
        if template.created and claim.created and template.created > claim.created:
            reasons.append("recreated")
        return tuple(reasons)


# (id, id) -> (spec, spec, equal): the claims of one RCT compared with it once, not once per Pod (a deep
# compare of two specs; specs are not changed after normalization, and the pair is kept, so ids hold)
_SAME: dict[tuple[int, int], tuple[ClaimSpec, ClaimSpec, bool]] = {}


def _same_spec(a: ClaimSpec, b: ClaimSpec) -> bool:
    hit = _SAME.get((id(a), id(b)))
    if hit is not None and hit[0] is a and hit[1] is b:
        return hit[2]
    same = a == b
    if len(_SAME) >= 4096:
        _SAME.clear()
    _SAME[(id(a), id(b))] = (a, b, same)
    return same


@dataclass
class PodContext:
    """One Pod's facts, each computed once and only when a rule asks (the simulation above all)."""

    snapshot: Snapshot
    pod: Pod
    claims: list[PodClaim] = field(default_factory=list)
    features: Features = field(default_factory=Features)
    found: list[Finding] = field(default_factory=list)  # what earlier rules found, in order
    simulation_blocked: bool = False  # a layer is missing: there is nothing meaningful to simulate
    life: Life | None = None  # the stages of the Pod's life, decided before any rule (lifecycle.py)

    @property
    def unallocated(self) -> list[PodClaim]:
        return [c for c in self.claims if not c.allocated]

    @property
    def rct_name(self) -> str:
        """The RCT the Pod's claims come from; the reference name when it uses none."""
        from kubectl_rbln.domain import DEFAULT_RCT  # noqa: PLC0415

        return next(
            (c.ref.resource_claim_template_name for c in self.claims if c.ref.resource_claim_template_name),
            DEFAULT_RCT,
        )

    @property
    def source_ref(self) -> PodClaimRef | None:
        """The claim reference the Pod's requests come from: its first RCT, else the first
        ResourceClaim it names itself; None when it has neither (the reference RCT is meant)."""
        refs = [c.ref for c in self.claims]
        return next((r for r in refs if r.resource_claim_template_name), None) or next(
            (r for r in refs if r.resource_claim_name), None
        )

    def source_of(self, claim_key: str) -> dict[str, Any]:
        """`claim_values` of the claim the simulation calls `claim_key` ("ns/name"): a Pod with an RCT
        and a ResourceClaim it names itself is told which of the two a failing request is in."""
        from kubectl_rbln.diagnose.simulation import claims_to_allocate  # noqa: PLC0415

        for claim, simulated in claims_to_allocate(self):
            if simulated.key == claim_key:
                return self.claim_values(claim.ref)
        return {}

    def claim_values(self, ref: PodClaimRef) -> dict[str, Any]:
        """The values that name one claim's source and fix it (`rct`, `direct_claim`, `claim`,
        `claim_source`), for a finding about that claim of a Pod that may have several."""
        direct = bool(ref.resource_claim_name and not ref.resource_claim_template_name)
        rct = ref.resource_claim_template_name or self.rct_name
        return {
            "rct": rct,
            "direct_claim": direct,
            **({"claim": ref.resource_claim_name} if direct else {}),
            **source_values(ref, rct),
        }

    def values(self, **more: Any) -> dict[str, Any]:
        """The values every finding about this Pod can name: namespace, pod, rct, and how the Pod is
        re-created (`restart`: the owner to `kubectl rollout restart`, "" when deleting the Pod is the way;
        `owned`: a controller creates it again once deleted)
        and whether it names its claim itself (`direct_claim`, then `claim` is that claim);
        `api_version`: the resource.k8s.io version a recipe printed for this cluster is written in;
        `claim_source`: the object the requests come from, as the words name it ("RCT npu-rdma" or
        "ResourceClaim npu-rdma-shared"; Korean puts the name first, `claim_source_kind_first` never)."""
        served = self.snapshot.resource_api_version
        return {
            **source_values(self.source_ref, self.rct_name),
            "api_version": served if served in API_VERSIONS else "v1",
            "namespace": self.pod.namespace,
            "pod": self.pod.name,
            "rct": self.rct_name,
            "restart": restart_target(self.pod),
            # a controller owns the Pod: deleted, it is created again (a fix may delete it)
            "owned": bool(self.pod.owner_kind and self.pod.owner_name),
            "direct_claim": any(c.ref.resource_claim_name for c in self.claims)
            and not any(c.ref.resource_claim_template_name for c in self.claims),
            # the claim a direct-claim fix re-creates (the first the Pod names itself)
            "claim": next((c.ref.resource_claim_name for c in self.claims if c.ref.resource_claim_name), ""),
            **more,
        }

    def found_slugs(self) -> set[str]:
        return {f.slug for f in self.found}

    @once
    def simulation(self) -> SimulationFacts:
        """The allocator on every node, run once per Pod, and only if a rule needs it."""
        from kubectl_rbln.diagnose.simulation import SimulationFacts, simulate_pod  # noqa: PLC0415

        if self.simulation_blocked:
            return SimulationFacts()
        return simulate_pod(self)

    @once
    def events(self) -> list[Event]:
        """Events of the Pod and of its claims, oldest first."""
        from kubectl_rbln.diagnose.pod_events import pod_events  # noqa: PLC0415

        return pod_events(self)

    @once
    def scheduling_messages(self) -> list[SchedulingMessage]:
        """The PodScheduled condition (it outlives events) first, then FailedScheduling events."""
        from kubectl_rbln.diagnose.pod_events import scheduling_messages  # noqa: PLC0415

        return scheduling_messages(self)

    @property
    def extended_resources(self) -> dict[str, str]:
        """Device-plugin resources the Pod asks for (rebellions.ai/ATOM, rdma/hca...)."""
        found: dict[str, str] = {}
        for container in self.pod.containers:
            for name, value in {**container.limits, **container.requests}.items():
                if name.startswith(DEVICE_RESOURCE_PREFIXES):
                    found[name] = value
        return found

    @property
    def extended_requests(self) -> dict[str, int]:
        """Every extended resource the Pod requests (any domain, and the implicit DeviceClass names),
        summed over its containers, as the scheduler's PodRequests adds them up."""
        total: dict[str, int] = {}
        for container in self.pod.containers:
            for name, count in container_extended_requests(container.requests, container.limits).items():
                total[name] = total.get(name, 0) + count
        return total

    @property
    def extended_claim(self) -> PodClaim | None:
        """The claim the scheduler builds for the Pod's DRA-backed extended resources, if any."""
        return next((c for c in self.claims if c.scheduler_built), None)


def resolve_claims(snapshot: Snapshot, pod: Pod) -> list[PodClaim]:
    """Follow each `spec.resourceClaims[]` entry to its template and claim (dra-facts.md 4.6)."""
    resolved = []
    for ref in pod.resource_claims:
        template = None
        if ref.resource_claim_template_name:
            template = snapshot.template(pod.namespace, ref.resource_claim_template_name)
        if ref.resource_claim_name:
            name: str | None = ref.resource_claim_name
            recorded = True
        else:
            name = pod.claim_statuses.get(ref.name)
            recorded = ref.name in pod.claim_statuses
        claim = snapshot.claim(pod.namespace, name) if name else None
        if claim is None and not ref.resource_claim_name:
            claim = _claim_by_annotation(snapshot, pod, ref.name)
        resolved.append(
            PodClaim(ref=ref, template=template, claim=claim, claim_name=name, status_recorded=recorded)
        )
    return resolved


def _claim_by_annotation(snapshot: Snapshot, pod: Pod, pod_claim_name: str) -> ResourceClaim | None:
    """A generated claim whose status entry is missing from a stale Pod copy: owner + annotation."""
    return _claims_by_owner(snapshot).get((pod.namespace, pod.name, pod_claim_name))


def _claims_by_owner(snapshot: Snapshot) -> dict[tuple[str, str | None, str | None], ResourceClaim]:
    """(namespace, owner Pod, Pod claim name) -> the first such claim, indexed once per snapshot: a
    scan of every claim per Pod is O(Pods x claims) when many Pods lack their status entries."""

    def build() -> dict[tuple[str, str | None, str | None], ResourceClaim]:
        out: dict[tuple[str, str | None, str | None], ResourceClaim] = {}
        for claim in snapshot.claims:
            out.setdefault((claim.namespace, claim.owner_pod, claim.pod_claim_name), claim)
        return out

    return snapshot.memo("claims-by-owner", build)


# ---------------------------------------------------------------- DRA-backed extended resources
#
# KEP-5004 (gate DRAExtendedResource: alpha 1.34, beta and on in 1.36): a Pod may request a device as
# an extended resource, `rebellions.ai/npu: 4` in its limits, when a DeviceClass names it in
# `spec.extendedResourceName`, or as `deviceclass.resource.kubernetes.io/<class>` for any class. The
# scheduler then builds one claim for the Pod itself. Sources, read for this code:
# - kubernetes/dynamic-resource-allocation v0.36.2 deviceclass/extendedresourcecache/
#   extendedresourcecache.go (updateResourceName2class): the explicit name, and always the implicit
#   name; two classes with one explicit name: the newest wins, the lower name on a tie;
# - kubernetes/kubernetes pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go
#   (1.36 cycle): preFilterExtendedResources builds the in-memory claim `<extended-resources>`
#   (generateName `<pod>-extended-resources-`); filterExtendedResources uses DRA for a mapped resource
#   only on nodes whose allocatable has none of it (a device plugin serves the others), and fails a
#   node with `cannot fit resource` when neither offers it; createRequestsAndMappings gives each
#   container one ExactCount request `container-<i>-request-<j>` (j: the resource's index in the
#   container's sorted requests) of that class, no selectors, sorted by name.
IMPLICIT_EXTENDED_PREFIX = "deviceclass.resource.kubernetes.io/"  # resourceapi.ResourceDeviceClassPrefix
EXTENDED_CLAIM_NAME = "<extended-resources>"  # specialClaimInMemName


def is_extended_resource_name(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName: an extended resource (a domain-prefixed name outside
    kubernetes.io, v1helper.IsExtendedResourceName) or an implicit DeviceClass name."""
    if name.startswith(IMPLICIT_EXTENDED_PREFIX):
        return True
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def container_extended_requests(requests: dict[str, str], limits: dict[str, str]) -> dict[str, int]:
    """Whole-number extended-resource requests of one container (an unset request defaults to the
    limit, as the API server defaults it); zero and fractional quantities are skipped, as upstream."""
    out: dict[str, int] = {}
    for name, value in {**limits, **requests}.items():
        if not is_extended_resource_name(name):
            continue
        try:
            count = int(str(value).strip())
        except ValueError:
            continue
        if count > 0:
            out[name] = count
    return out


def extended_resource_classes(snapshot: Snapshot) -> dict[str, DeviceClass]:
    """Extended resource name -> the DeviceClass the scheduler maps it to (its ExtendedResourceCache)."""

    def build() -> dict[str, DeviceClass]:
        classes = sorted(snapshot.device_classes.values(), key=lambda c: c.name)
        # newest first; sorted() is stable, so the lower name stays first among equal timestamps
        classes.sort(key=_created, reverse=True)
        out: dict[str, DeviceClass] = {}
        for device_class in classes:
            if device_class.extended_resource_name:
                out.setdefault(device_class.extended_resource_name, device_class)
        for device_class in classes:
            out[IMPLICIT_EXTENDED_PREFIX + device_class.name] = device_class
        return out

    return snapshot.memo("extended-resource-classes", build)


def _created(device_class: DeviceClass) -> str:
    return str((device_class.raw.get("metadata") or {}).get("creationTimestamp") or "")


def advertised_extended(snapshot: Snapshot) -> dict[str, list[str]]:
    """Extended resource -> the nodes whose allocatable has some of it (a device plugin serves it)."""

    def build() -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for node in sorted(snapshot.nodes.values(), key=lambda n: n.name):
            for name, value in node.allocatable.items():
                if is_extended_resource_name(name) and str(value).strip() not in ("", "0"):
                    out.setdefault(name, []).append(node.name)
        return out

    return snapshot.memo("advertised-extended-resources", build)


def _written_extended_claims(snapshot: Snapshot) -> dict[tuple[str, str], ResourceClaim]:
    """(namespace, Pod) -> the extended-resources claim the scheduler wrote for it, indexed once."""

    def build() -> dict[tuple[str, str], ResourceClaim]:
        out: dict[tuple[str, str], ResourceClaim] = {}
        for claim in snapshot.claims:
            owner = claim.owner_pod
            generated = claim.name.startswith(f"{owner}-extended-resources-")
            if owner and claim.pod_claim_name is None and generated:
                out.setdefault((claim.namespace, owner), claim)
        return out

    return snapshot.memo("written-extended-claims", build)


def extended_resource_claim(snapshot: Snapshot, pod: Pod) -> PodClaim | None:
    """The claim the scheduler builds for `pod`'s DRA-backed extended resources: the one it already
    wrote (owner Pod, name `<pod>-extended-resources-*`), else the in-memory claim it would allocate.
    A resource some node advertises is left to the device plugin (the simulation runs one claim on
    every node, so it covers the resources no node serves otherwise)."""
    written_claims = _written_extended_claims(snapshot)
    written = written_claims.get((pod.namespace, pod.name)) if written_claims else None
    if written is None and pod.node_name:
        return None  # a bound Pod has no claim to build (most Pods `check` reads)
    mapping = extended_resource_classes(snapshot)
    advertised = advertised_extended(snapshot)
    per_container = [container_extended_requests(c.requests, c.limits) for c in pod.containers]
    wanted = sorted(
        {name for counts in per_container for name in counts if name in mapping and name not in advertised}
    )
    extended = {name: mapping[name].name for name in wanted}
    ref = PodClaimRef(name=EXTENDED_CLAIM_NAME)
    if written is not None:
        return PodClaim(ref, None, written, written.name, True, scheduler_built=True, extended=extended)
    if not wanted:
        return None
    requests = []
    for name in wanted:
        for index, (container, counts) in enumerate(zip(pod.containers, per_container, strict=True)):
            if name not in counts:
                continue
            position = sorted({**container.limits, **container.requests}).index(name)
            exact = ExactRequest(device_class=mapping[name].name, selectors=[], count=counts[name])
            requests.append(Request(name=f"container-{index}-request-{position}", exactly=exact))
    spec = ClaimSpec(requests=sorted(requests, key=lambda r: r.name), constraints=[])
    built = PodClaim(ref, None, None, EXTENDED_CLAIM_NAME, True, spec_override=spec, extended=extended)
    built.scheduler_built = True
    return built


def pod_context(snapshot: Snapshot, pod: Pod, features: Features | None = None) -> PodContext:
    claims = resolve_claims(snapshot, pod)
    extended = extended_resource_claim(snapshot, pod)
    if extended is not None:
        claims.append(extended)
    return PodContext(snapshot=snapshot, pod=pod, claims=claims, features=features or Features())


def source_values(ref: PodClaimRef | None, rct: str) -> dict[str, Any]:
    """How a finding names the object a claim's requests come from: the ResourceClaim a Pod names
    itself (`resourceClaimName`), else the RCT (`rct` when the reference names none). A rule about one
    claim passes that claim's reference; the words are the catalog's (`claim-source-*`)."""
    if ref is not None and ref.resource_claim_name and not ref.resource_claim_template_name:
        kind, name = "claim", ref.resource_claim_name
    else:
        kind, name = "rct", (ref.resource_claim_template_name if ref is not None else None) or rct
    return {
        "claim_source": Said(Phrase(f"claim-source-{kind}", {"name": name})),
        "claim_source_kind_first": Said(Phrase(f"claim-source-{kind}-kind-first", {"name": name})),
    }


def probe_pod(namespace: str, rct: str, name: str | None = None) -> Pod:
    """A Pending Pod that only references the RCT, as the chart writes one: for `check` and
    `suggest-rct` on a cluster where no Pod uses the RCT yet, so they can run why's own rules."""
    return Pod(
        name=name or f"{rct}-probe",
        namespace=namespace,
        uid="",
        phase="Pending",
        node_name=None,
        labels={},
        node_selector={},
        affinity={},
        tolerations=[],
        resource_claims=[PodClaimRef(name=rct, resource_claim_template_name=rct)],
        claim_statuses={},
        conditions={},
        containers=[],
        container_states=[],
    )


def find_pods(snapshot: Snapshot, names: Sequence[str], namespace: str | None) -> tuple[list[Pod], list[str]]:
    """Named Pods (`ns/pod` or `pod`), and a `pod "x" not found in namespace "y"` for each missing one."""
    found: list[Pod] = []
    missing: list[str] = []
    for name in names:
        ns, short = split_pod_ref(name, namespace)
        pod = snapshot.pod(ns, short)
        if pod is None:
            missing.append(f'pod "{short}" not found in namespace "{ns}"')
        else:
            found.append(pod)
    return found, missing


def is_device_pod(pod: Pod) -> bool:
    if pod.resource_claims:
        return True
    return any(
        name.startswith(DEVICE_RESOURCE_PREFIXES) or name.startswith(IMPLICIT_EXTENDED_PREFIX)
        for container in pod.containers
        for name in {**container.requests, **container.limits}
    )


def split_pod_ref(name: str, namespace: str | None) -> tuple[str, str]:
    """`ns/pod` or `pod` (in `namespace`, else `default`) -> (namespace, pod)."""
    if "/" in name:
        ns, _, short = name.rpartition("/")
        return ns, short
    return namespace or "default", name


ROLLOUT_KINDS = {"Deployment": "deployment", "StatefulSet": "statefulset", "DaemonSet": "daemonset"}


def restart_target(pod: Pod) -> str:
    """`kind/name` for `kubectl rollout restart`, from the Pod's controller owner; "" when there is none.

    A ReplicaSet is a Deployment's (`<deployment>-<pod-template-hash>`): the hash suffix goes. A Job, a
    bare Pod or an unknown owner has no rollout: deleting the Pod is the fix (its controller, if any,
    creates it again)."""
    kind, name = pod.owner_kind, pod.owner_name
    if kind == "ReplicaSet" and "-" in name:
        return f"deployment/{name.rsplit('-', 1)[0]}"
    if kind in ROLLOUT_KINDS and name:
        return f"{ROLLOUT_KINDS[kind]}/{name}"
    return ""
