"""What every `why` check needs to know about one Pod: its claims, layer by layer.

A Pod's claim goes through four layers (seed 001's table): the DeviceClasses,
the drivers' ResourceSlices, the ResourceClaimTemplate, and the generated
ResourceClaim in `status.resourceClaimStatuses`. `PodClaim` resolves one
`spec.resourceClaims[]` entry through them, once, for all checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kubectl_rbln.domain import DEVICE_RESOURCE_PREFIXES
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.model import ClaimSpec, Pod, PodClaimRef, ResourceClaim, ResourceClaimTemplate, Snapshot

if TYPE_CHECKING:
    from kubectl_rbln.diagnose.events import SchedulingMessage
    from kubectl_rbln.diagnose.findings import Finding
    from kubectl_rbln.diagnose.simulation import SimulationFacts
    from kubectl_rbln.dra.model import Event


@dataclass(slots=True)
class PodClaim:
    ref: PodClaimRef
    template: ResourceClaimTemplate | None  # the RCT, when the entry names one and it exists
    claim: ResourceClaim | None  # the generated or named claim, when it exists
    claim_name: str | None  # what the claim is (or would be) called
    status_recorded: bool  # the claim controller wrote status.resourceClaimStatuses for it
    spec_override: ClaimSpec | None = None  # `why --with-rct`: the spec a re-created claim would have

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


@dataclass
class PodContext:
    """One Pod's facts, each computed once and only when a rule asks (the simulation above all)."""

    snapshot: Snapshot
    pod: Pod
    claims: list[PodClaim] = field(default_factory=list)
    features: Features = field(default_factory=Features)
    found: list[Finding] = field(default_factory=list)  # what earlier rules found, in order
    simulation_blocked: bool = False  # a layer is missing: there is nothing meaningful to simulate

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

    def values(self, **more: Any) -> dict[str, Any]:
        """The values every finding about this Pod can name: namespace, pod, rct."""
        return {"namespace": self.pod.namespace, "pod": self.pod.name, "rct": self.rct_name, **more}

    def found_slugs(self) -> set[str]:
        return {f.slug for f in self.found}

    @cached_property
    def simulation(self) -> SimulationFacts:
        """The allocator on every node, run once per Pod, and only if a rule needs it."""
        from kubectl_rbln.diagnose.simulation import SimulationFacts, simulate_pod  # noqa: PLC0415

        if self.simulation_blocked:
            return SimulationFacts()
        return simulate_pod(self)

    @cached_property
    def events(self) -> list[Event]:
        """Events of the Pod and of its claims, oldest first."""
        from kubectl_rbln.diagnose.pod_events import pod_events  # noqa: PLC0415

        return pod_events(self)

    @cached_property
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
    for claim in snapshot.claims:
        if (
            claim.namespace == pod.namespace
            and claim.owner_pod == pod.name
            and claim.pod_claim_name == pod_claim_name
        ):
            return claim
    return None


def pod_context(snapshot: Snapshot, pod: Pod, features: Features | None = None) -> PodContext:
    return PodContext(
        snapshot=snapshot, pod=pod, claims=resolve_claims(snapshot, pod), features=features or Features()
    )


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
        name.startswith(DEVICE_RESOURCE_PREFIXES)
        for container in pod.containers
        for name in {**container.requests, **container.limits}
    )


def split_pod_ref(name: str, namespace: str | None) -> tuple[str, str]:
    """`ns/pod` or `pod` (in `namespace`, else `default`) -> (namespace, pod)."""
    if "/" in name:
        ns, _, short = name.rpartition("/")
        return ns, short
    return namespace or "default", name
