"""A Pod's life as explicit stages, decided from the objects before any rule runs.

Kubernetes itself draws these stages (design.md, "the Pod's life as the spine"): the owner creates
the Pod, the claim controller its claims, PreEnqueue lets it into the queue, a scheduler that
allocates claims takes it, Filter/Reserve allocate and reserve the claims, PreBind/Bind bind it, the
kubelet admits it, prepares its claims, creates the sandbox and starts the containers, and the
containers see what they were given. The verdict is the earliest stage not passed; the rules of that
stage name its known causes, and when none does the stage's own evidence is quoted as it stands.

Every `Quote.text` is a string of the input, byte for byte (tests/why/test_lifecycle.py checks it on
every scenario): a stage never says what an object did not say.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from kubectl_rbln.diagnose.events import mentions_claim_preparation
from kubectl_rbln.diagnose.pod_events import events_by_object
from kubectl_rbln.diagnose.stage_types import PASSED, STAGES, STUCK, UNKNOWN, Life, Quote, StageState
from kubectl_rbln.dra.typed_reads import device_locator, is_typed, varying_names

if TYPE_CHECKING:
    from kubectl_rbln.diagnose.context import PodContext
    from kubectl_rbln.dra.model import ContainerState, Event, Pod, ResourceSlice, Snapshot, Workload

__all__ = ["STAGES", "Life", "Quote", "StageState", "decide_life"]
DEFAULT_SCHEDULER = "default-scheduler"
# the kube-scheduler's leader-election Lease (--leader-elect-resource-name, default kube-scheduler)
SCHEDULER_LEASE = ("kube-system", "kube-scheduler")
SCHEDULER_COMPONENT = "kube-scheduler"  # the label `component` of kubeadm's kube-scheduler static Pods
# what a container waits in while the kubelet prepares claims and creates the sandbox (not a failure)
_STARTING = frozenset({"ContainerCreating", "PodInitializing", ""})
_SANDBOX_REASONS = frozenset({"FailedCreatePodSandBox", "FailedPodSandBoxStatus", "FailedKillPod"})
_PREPARE_REASONS = frozenset({"FailedPrepareDynamicResources"})
PREBIND_MARK = "running PreBind plugin"  # pkg/scheduler/schedule_one.go, the framework's status text
_TIME_FORMATS = ("%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%SZ")


def decide_life(ctx: PodContext) -> Life:
    """Each stage from the objects alone, in order; the stages after the first stuck one are not
    decided (the Pod never reached them), so a later stage's evidence is never read as the cause."""
    stages: list[StageState] = []
    for stage, decide in _DECIDERS:
        state = decide(ctx)
        state.stage = stage
        stages.append(state)
        if state.status == STUCK or state.facts.get("hypothetical"):
            break  # `why --with-rct`: what follows is the life of the re-created Pod
    return Life(stages)


# ------------------------------------------------------------------------------ quoting helpers


def event_quote(event: Event) -> Quote:
    source = f" ({event.source})" if event.source else ""
    count = f" x{event.count}" if event.count > 1 else ""
    kind = f" {event.involved_kind}/{event.involved_name}" if event.involved_kind != "Pod" else ""
    return Quote(f"Event{kind} {event.type} {event.reason}{source}{count}", event.message or event.reason)


def _condition_quotes(pod: Pod, kind: str) -> list[Quote]:
    condition = pod.conditions.get(kind)
    if condition is None or condition.status == "True":
        return []
    quotes = []
    if condition.reason:
        quotes.append(Quote(f"status.conditions[{kind}={condition.status}].reason", condition.reason))
    if condition.message:
        quotes.append(Quote(f"status.conditions[{kind}={condition.status}].message", condition.message))
    return quotes


def _container_quotes(state: ContainerState) -> list[Quote]:
    where = f"status.containerStatuses[{state.name}].state.{state.state or '?'}"
    quotes = []
    if state.reason:
        quotes.append(Quote(f"{where}.reason", state.reason))
    if state.message:
        quotes.append(Quote(f"{where}.message", state.message))
    if state.last_reason:
        quotes.append(Quote(f"status.containerStatuses[{state.name}].lastState.reason", state.last_reason))
    return quotes


def _warnings(events: list[Event], reasons: frozenset[str] | None = None) -> list[Event]:
    """Warning events, newest first (the strongest evidence leads)."""
    found = [e for e in events if e.type == "Warning" and (reasons is None or e.reason in reasons)]
    return sorted(found, key=lambda e: e.last_timestamp, reverse=True)


def parse_time(text: str) -> datetime | None:
    for layout in _TIME_FORMATS:
        try:
            return datetime.strptime(text, layout).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def read_time(snapshot: Snapshot) -> datetime | None:
    """When the objects were read: ClusterInfo's readAt, else no earlier than the newest event."""

    def build() -> datetime | None:
        stamps = [parse_time(snapshot.read_at)] if snapshot.read_at else []
        stamps += [parse_time(e.last_timestamp) for e in snapshot.events if e.last_timestamp]
        known = [s for s in stamps if s is not None]
        return max(known) if known else None

    return snapshot.memo("read-time", build)


# ------------------------------------------------------------------------------------ the stages


def _created(ctx: PodContext) -> StageState:
    """The Pod exists, so it was created. A finished Pod (Failed, Succeeded, being deleted) is to be
    replaced by its owner: when the owner says it cannot create the replacement (its FailedCreate
    events, a ReplicaFailure condition), the workload is stuck here (kubernetes#131877)."""
    pod = ctx.pod
    owners = owner_chain(ctx.snapshot, pod)
    facts: dict[str, Any] = {}
    if owners:
        facts["owners"] = [f"{w.kind}/{w.name}" for w in owners]
    siblings = recreated_siblings(ctx.snapshot, pod)
    if siblings:
        facts["failedSiblings"] = siblings
    if pod.phase not in ("Failed", "Succeeded") and not pod.deletion_timestamp:
        return StageState("created", PASSED, facts=facts)
    quotes = owner_refusals(ctx.snapshot, pod, owners)
    return StageState("created", STUCK if quotes else PASSED, quotes, facts)


def owner_refusals(snapshot: Snapshot, pod: Pod, owners: list[Workload]) -> list[Quote]:
    """What the Pod's owners say refused a new Pod: FailedCreate warnings, ReplicaFailure conditions."""
    keys = [(pod.owner_kind, pod.owner_name)] if pod.owner_name else []
    keys += [(w.kind, w.name) for w in owners if (w.kind, w.name) not in keys]
    quotes = [
        event_quote(e)
        for kind, name in keys
        for e in _warnings(events_of(snapshot, pod.namespace, kind, name), frozenset({"FailedCreate"}))
    ]
    for workload in owners:
        failure = workload.conditions.get("ReplicaFailure")
        if failure is not None and failure.status == "True" and failure.message:
            where = f"{workload.kind}/{workload.name} status.conditions[ReplicaFailure=True].message"
            quotes.append(Quote(where, failure.message))
    return quotes


def _claims_created(ctx: PodContext) -> StageState:
    """Every claim the Pod names exists and is not being deleted (the scheduler's PreEnqueue waits for
    them; dra-facts-136.md: it records no event, so the objects and the controller's events show it)."""
    pod = ctx.pod
    if pod.node_name or pod.phase in ("Succeeded", "Failed"):
        # it got past: the kubelet needs the claims to run it, and the claim controller deletes the
        # claims of a finished Pod while the Pod still names them
        return StageState("claims-created", PASSED)
    missing, deleting = [], []
    for claim in ctx.claims:
        if claim.scheduler_built or claim.hypothetical:
            continue  # the scheduler builds the extended-resources claim itself; --with-rct's is virtual
        if claim.claim is None and claim.spec_override is None:
            missing.append(claim)
        elif claim.claim is not None and (claim.claim.deleting or claim.claim.deletion_timestamp):
            deleting.append(claim)
    if not missing and not deleting:
        return StageState("claims-created", PASSED)
    quotes = [event_quote(e) for e in _warnings(ctx.events, frozenset({"FailedResourceClaimCreation"}))]
    for claim in deleting:
        if claim.claim is not None:
            where = f"ResourceClaim/{claim.claim.name} metadata.deletionTimestamp"
            quotes.append(Quote(where, claim.claim.deletion_timestamp))
    facts: dict[str, Any] = {}
    if missing:
        facts["claimsMissing"] = [c.ref.name for c in missing]
        facts["statusRecorded"] = {c.ref.name: c.status_recorded for c in missing}
    if deleting:
        facts["claimsBeingDeleted"] = [c.claim.name for c in deleting if c.claim]
    return StageState("claims-created", STUCK, quotes, facts)


def _queued(ctx: PodContext) -> StageState:
    pod = ctx.pod
    if pod.node_name or not pod.scheduling_gates:
        return StageState("queued", PASSED)
    quotes = [Quote("spec.schedulingGates[].name", gate) for gate in pod.scheduling_gates]
    quotes += _condition_quotes(pod, "PodScheduled")
    return StageState("queued", STUCK, quotes, {"schedulingGates": list(pod.scheduling_gates)})


def _scheduler(ctx: PodContext) -> StageState:
    """Which scheduler owns the Pod, and does it run and allocate claims, as far as the API shows."""
    pod, snapshot = ctx.pod, ctx.snapshot
    name = pod.scheduler_name or DEFAULT_SCHEDULER
    facts: dict[str, Any] = {"schedulerName": name}
    if pod.node_name:
        unallocated = (
            [c for c in ctx.claims if not c.allocated and not c.hypothetical and not c.scheduler_built]
            if pod.phase == "Pending"
            else []  # a bound Pod past Pending runs on what it was given: its claims are not asked
        )
        if unallocated and ctx.claims:
            # bound with claims nobody allocated: spec.nodeName was set at creation, or the scheduler
            # that bound it does not allocate claims (the kubelet then cannot prepare them)
            facts["claimsUnallocated"] = [c.claim_name or c.ref.name for c in unallocated]
            facts["node"] = pod.node_name
            quotes = [event_quote(e) for e in _scheduled_events(ctx)] or [
                Quote("spec.nodeName", pod.node_name)
            ]
            quotes += [event_quote(e) for e in _warnings(ctx.events) if _mentions_prepare(e)]
            return StageState("scheduler", STUCK, quotes, facts)
        return StageState("scheduler", PASSED, facts=facts)
    if pod.phase != "Pending":
        return StageState("scheduler", PASSED, facts=facts)
    if _scheduler_spoke(ctx, name):
        return StageState("scheduler", PASSED, facts=facts)
    lease = _lease_of(snapshot, name)
    if lease is not None:
        now = read_time(snapshot)
        renewed = parse_time(lease.renew_time) if lease.renew_time else None
        duration = lease.duration_seconds or 15
        if renewed is not None and now is not None and renewed + timedelta(seconds=duration) < now:
            facts["lease"] = f"{lease.namespace}/{lease.name}"
            facts["readAt"] = now.strftime("%Y-%m-%dT%H:%M:%SZ")
            quotes = [Quote(f"Lease {lease.namespace}/{lease.name} spec.renewTime", lease.renew_time)]
            if lease.holder:
                quotes.append(
                    Quote(f"Lease {lease.namespace}/{lease.name} spec.holderIdentity", lease.holder)
                )
            states = [s for p in _scheduler_pods(snapshot, name) for s in p.container_states]
            quotes += [q for s in states for q in _container_quotes(s)]
            return StageState("scheduler", STUCK, quotes, facts)
        return StageState("scheduler", PASSED, facts=facts)
    if name == DEFAULT_SCHEDULER:
        pods = _scheduler_pods(snapshot, name)
        if pods and not any(p.phase == "Running" and all(s.ready for s in p.container_states) for p in pods):
            # kube-scheduler's static Pods are all down: nothing takes the Pod
            quotes = [q for p in pods for s in p.container_states for q in _container_quotes(s)]
            quotes = quotes or [Quote(f"Pod kube-system/{p.name} status.phase", p.phase) for p in pods]
            return StageState("scheduler", STUCK, quotes, {**facts, "schedulerPods": [p.name for p in pods]})
        if pods:
            return StageState("scheduler", PASSED, facts=facts)
        return StageState(
            "scheduler",
            UNKNOWN,
            facts=facts,
            assumption="the default scheduler is assumed to run and allocate claims "
            "(the input holds no kube-system/kube-scheduler Lease and no word of it on this Pod)",
        )
    if _scheduler_known(snapshot, name):
        return StageState(
            "scheduler",
            UNKNOWN,
            facts=facts,
            assumption=f"scheduler {name} is seen in the cluster; whether it allocates claims is not shown",
        )
    # a named scheduler nothing in the cluster shows running: no Lease, no event of it anywhere, and
    # nothing written on this Pod (a running scheduler writes PodScheduled=False when it cannot place it)
    placed = snapshot.memo("pods-placed-by-scheduler", lambda: _placed_by_scheduler(snapshot)).get(name, 0)
    quotes = [Quote("spec.schedulerName", name)]
    return StageState("scheduler", STUCK, quotes, {**facts, "schedulerSeen": False, "podsItPlaced": placed})


def _allocated(ctx: PodContext) -> StageState:
    pod = ctx.pod
    if pod.node_name:
        return StageState("allocated", PASSED)
    if any(c.hypothetical for c in ctx.claims):
        # `why --with-rct`: the claims a re-created Pod would get, allocated by the simulation
        fits = ctx.simulation.fitting
        rct = next((c.template.name for c in ctx.claims if c.hypothetical and c.template is not None), "")
        return StageState(
            "allocated", PASSED if fits else STUCK, [], {"hypothetical": True, "rct": rct, "fitsOn": fits}
        )
    claims = [c for c in ctx.claims if not c.hypothetical]
    unallocated = [c.claim_name or c.ref.name for c in ctx.claims if not c.allocated]
    # a claim generated for this Pod and allocated was allocated for it (PreBind writes the allocation
    # and the reservation together); a shared claim allocated for others must also be reserved for it
    unreserved = [
        c.claim.name
        for c in claims
        if c.allocated and c.claim and c.claim.owner_pod != pod.name and not _reserved_for(c.claim, pod)
    ]
    # no claim at all (devices as extended resources, a device plugin): Filter fits them, or not
    if ctx.claims and not unallocated and not unreserved:
        return StageState("allocated", PASSED)
    if _failed_in_prebind(ctx):
        return StageState("allocated", PASSED)  # Filter and Reserve passed; PreBind undid the allocation
    quotes = _condition_quotes(pod, "PodScheduled")
    quotes += [event_quote(e) for e in _warnings(ctx.events, frozenset({"FailedScheduling"}))]
    facts: dict[str, Any] = {}
    if unallocated:
        facts["claimsUnallocated"] = unallocated
    if unreserved:
        facts["claimsNotReservedForPod"] = unreserved
    return StageState("allocated", STUCK, quotes, facts)


def _bound(ctx: PodContext) -> StageState:
    pod = ctx.pod
    if pod.node_name or pod.phase != "Pending":
        return StageState("bound", PASSED)
    quotes = _condition_quotes(pod, "PodScheduled")
    quotes += [
        event_quote(e) for e in _warnings(ctx.events, frozenset({"FailedScheduling", "FailedBinding"}))
    ]
    return StageState("bound", STUCK, quotes, {"claimsAllocated": [c.claim_name for c in ctx.claims]})


def _admitted(ctx: PodContext) -> StageState:
    """A Pod the kubelet refuses ends Failed with a reason and no container ever started
    (pkg/kubelet/lifecycle: UnexpectedAdmissionError, OutOf<resource>, NodeAffinity...)."""
    pod = ctx.pod
    if pod.phase != "Failed" or not pod.reason:
        return StageState("admitted", PASSED)
    if any(s.state in ("running", "terminated") or s.restart_count for s in pod.container_states):
        return StageState("admitted", PASSED)  # a container started: the kubelet admitted it
    quotes = [Quote("status.reason", pod.reason)]
    if pod.message:
        quotes.append(Quote("status.message", pod.message))
    quotes += [event_quote(e) for e in _warnings(ctx.events) if e.reason == pod.reason]
    return StageState("admitted", STUCK, quotes, {"node": pod.node_name or ""})


def _prepared(ctx: PodContext) -> StageState:
    if ctx.pod.phase in ("Succeeded", "Failed", "Running"):
        return StageState("prepared", PASSED)
    failures = [e for e in _warnings(ctx.events) if e.reason in _PREPARE_REASONS or _mentions_prepare(e)]
    # a container may wait after the sandbox for a claim the kubelet never prepared (CDI, claim info)
    waits = [
        s for s in ctx.pod.container_states if s.state == "waiting" and mentions_claim_preparation(s.message)
    ]
    if not failures and not waits and _sandbox_ready(ctx.pod):
        return StageState("prepared", PASSED)
    if failures or waits:
        quotes = [event_quote(e) for e in failures] + [q for s in waits for q in _container_quotes(s)]
        return StageState("prepared", STUCK, quotes, {"node": ctx.pod.node_name})
    if _warnings(ctx.events, _SANDBOX_REASONS):
        return StageState("prepared", PASSED)  # the kubelet went on to the sandbox
    waiting = [s for s in ctx.pod.container_states if s.state == "waiting" and s.reason not in _STARTING]
    if waiting:
        return StageState("prepared", PASSED)  # past the sandbox: a container waits for its own reason
    # nothing recorded says whether the kubelet prepares the claims or creates the sandbox
    quotes = [q for s in ctx.pod.container_states for q in _container_quotes(s)]
    quotes += _condition_quotes(ctx.pod, "PodReadyToStartContainers")
    facts = {"node": ctx.pod.node_name, "noFailureRecorded": True}
    return StageState("prepared", STUCK, quotes, facts, also=("sandbox",))


def _sandbox(ctx: PodContext) -> StageState:
    if _sandbox_ready(ctx.pod) or ctx.pod.phase in ("Succeeded", "Failed"):
        return StageState("sandbox", PASSED)
    failures = _warnings(ctx.events, _SANDBOX_REASONS)
    waiting = [s for s in ctx.pod.container_states if s.state == "waiting" and s.reason not in _STARTING]
    if waiting and not failures:
        return StageState("sandbox", PASSED)
    quotes = [event_quote(e) for e in failures] + _condition_quotes(ctx.pod, "PodReadyToStartContainers")
    return StageState("sandbox", STUCK, quotes, {"node": ctx.pod.node_name})


def _running(ctx: PodContext) -> StageState:
    pod = ctx.pod
    if pod.phase == "Succeeded":
        return StageState("running", PASSED)
    facts: dict[str, Any] = {}
    quotes: list[Quote] = []
    if pod.deletion_timestamp:
        quotes.append(Quote("metadata.deletionTimestamp", pod.deletion_timestamp))
        facts["terminating"] = True
    troubled = [s for s in pod.container_states if _troubled(s)]
    for state in troubled:
        quotes += _container_quotes(state)
    if pod.phase == "Failed":
        if pod.reason:
            quotes.append(Quote("status.reason", pod.reason))
        if pod.message:
            quotes.append(Quote("status.message", pod.message))
    warnings = _warnings(ctx.events)
    quotes += [
        event_quote(e) for e in warnings if e.reason in ("BackOff", "Failed", "FailedKillPod", "Killing")
    ]
    if not quotes and (pod.phase == "Running" or not pod.container_states):
        if all(s.ready for s in pod.container_states):
            return StageState("running", PASSED)
        quotes += _condition_quotes(pod, "Ready") + _condition_quotes(pod, "ContainersReady")
    if troubled:
        first = troubled[0]
        facts.update(
            container=first.name, reason=first.reason or first.last_reason, restarts=first.restart_count
        )
    return StageState("running", STUCK, quotes, facts)


def _devices(ctx: PodContext) -> StageState:
    """What the containers see against what they were given: pod-devices' probe, when the input holds
    its capture (`dump` records one for running device Pods); without one the stage is not shown."""
    drift = allocation_drift(ctx)
    if drift:
        quotes, facts = drift
        return StageState("devices", STUCK, quotes, facts)
    entries = device_entries(ctx)
    if not entries:
        return StageState(
            "devices",
            UNKNOWN,
            assumption="what the containers see is not in the input (no pod-devices capture): "
            "kubectl rbln pod-devices shows it",
        )
    wrong = sorted({f.slug for entry in entries for f in entry.findings if f.severity == "error"})
    if not wrong:
        return StageState("devices", PASSED)
    return StageState(
        "devices", STUCK, [], {"containers": [e.container for e in entries], "podDevicesFound": wrong}
    )


def _captures_by_pod(snapshot: Snapshot) -> dict[str, list[Any]]:
    """ "ns/pod" -> its exec captures, indexed once (`check` decides every running Pod's devices)."""
    out: dict[str, list[Any]] = {}
    for capture in snapshot.captures:
        out.setdefault(f"{capture.namespace}/{capture.pod}", []).append(capture)
    return out


def allocation_drift(ctx: PodContext) -> tuple[list[Quote], dict[str, Any]] | None:
    """The devices a running Pod was given that its request would no longer select, or that the
    driver no longer publishes: a device changed under the Pod (dranet#51: `dra.net/rdma` turns false
    when the NIC's RDMA driver goes). The request's own selector is quoted, as the input holds it."""
    if ctx.pod.phase != "Running":
        return None
    snapshot = ctx.snapshot
    locator = device_locator(snapshot)  # typed slices are not built (dra/typed_reads.py)
    quotes: list[Quote] = []
    changed: list[str] = []
    gone: list[str] = []
    for pod_claim in ctx.claims:
        claim = pod_claim.claim
        if claim is None or claim.allocation is None:
            continue
        verdicts = _DriftVerdicts.of(snapshot, claim.spec)
        by_type = verdicts.by_type
        pool: tuple[str, str] = ("", "")
        single = None
        for result in claim.allocation.results:
            if result.pool != pool[1] or result.driver != pool[0]:
                pool = (result.driver, result.pool)  # a claim's results come pool by pool
                single = locator.single(pool)  # a pool of one typed slice: looked up once, not per device
            found: tuple[ResourceSlice, int] | None
            if single is not None:
                at = single[1].get(result.device)
                if at is not None and by_type.get((single[0].type_id, at, result.request), _UNSEEN) is None:
                    continue  # the type's answer (`rejecting` keeps it): every selector still selects it
                found = None if at is None else (single[0], at)
            else:
                found = locator.find_in(pool, result.device)
            if found is None:
                gone.append(f"{result.driver}/{result.pool}/{result.device}")
                continue
            failing = verdicts.rejecting(*found, result.request)
            if failing is not None:
                changed.append(f"{result.driver}/{result.pool}/{result.device}")
                where = f"ResourceClaim/{claim.name} spec.devices.requests[{result.request}].selectors[].cel"
                quotes.append(Quote(where, failing))
    if not changed and not gone:
        return None
    facts: dict[str, Any] = {}
    if changed:
        facts["devicesNoLongerSelected"] = changed
    if gone:
        facts["devicesNoLongerPublished"] = gone
    return quotes, facts


_UNSEEN = object()  # no answer kept for a (type, position, request) yet


class _DriftVerdicts:
    """What the requests of one claim spec say of allocated devices (`allocation_drift`), per slice
    type and position where the selectors read no value that varies in the type: `check` asks it of
    every device of every running Pod, and claims from one RCT share their spec."""

    def __init__(self, spec: Any) -> None:
        from kubectl_rbln.diagnose.topology import rejecting_at, selector_reads  # noqa: PLC0415

        self._rejecting_at, self._reads = rejecting_at, selector_reads
        self.spec = spec  # held: its id keys the table
        self.requests = {r.name: r for r in spec.requests}
        self.exact: dict[str, Any] = {}
        self.by_type: dict[tuple[int, int, str], str | None] = {}

    @staticmethod
    def of(snapshot: Snapshot, spec: Any) -> _DriftVerdicts:
        tables: dict[int, _DriftVerdicts] = snapshot.memo("lifecycle-drift-verdicts", dict)
        found = tables.get(id(spec))
        if found is None or found.spec is not spec:
            found = tables[id(spec)] = _DriftVerdicts(spec)
        return found

    def _selectors(self, request: str) -> list[str] | None:
        """The selectors of the request (or subrequest) a result names; None: no such request."""
        if request not in self.exact:
            top, _, sub = request.partition("/")
            entry = self.requests.get(top)
            alternatives = entry.alternatives if entry is not None else []
            exact = next((a for a in alternatives if not sub or a.name == sub), None)
            self.exact[request] = exact.selectors if exact is not None else None
        return self.exact[request]

    def rejecting(self, slice_: ResourceSlice, position: int, request: str) -> str | None:
        """The first selector of `request` that no longer selects the device at `position` of `slice_`."""
        key = (slice_.type_id, position, request)
        if key in self.by_type:
            return self.by_type[key]
        selectors = self._selectors(request)
        if selectors is None:
            return None
        found: str | None = self._rejecting_at(slice_, position, selectors)
        if is_typed(slice_):
            reads = self._reads(selectors)
            if reads is not None and not reads & varying_names(slice_):
                self.by_type[key] = found  # no value it reads varies in the type: the type's answer
        return found


def device_entries(ctx: PodContext) -> list[Any]:
    """pod-devices' entry (diagnose/pod_devices.py) of each container the input has a capture of."""
    pod = ctx.pod
    if pod.phase != "Running" or not ctx.snapshot.captures:
        return []
    mine = ctx.snapshot.memo("captures-by-pod", lambda: _captures_by_pod(ctx.snapshot)).get(pod.key, [])
    containers = sorted({c.container for c in mine})
    if not containers:
        return []
    from kubectl_rbln.cluster.exec_probe import ProbeTarget, from_captures, interpret  # noqa: PLC0415
    from kubectl_rbln.diagnose.pod_devices import pod_entry  # noqa: PLC0415

    entries = []
    for container in containers:
        run = from_captures(mine, ProbeTarget(pod.namespace, pod.name, container))
        result, problem = interpret(run)
        if result is not None:
            entries.append(pod_entry(ctx.snapshot, pod, container, result, problem))
    return entries


_DECIDERS = (
    ("created", _created),
    ("claims-created", _claims_created),
    ("queued", _queued),
    ("scheduler", _scheduler),
    ("allocated", _allocated),
    ("bound", _bound),
    ("admitted", _admitted),
    ("prepared", _prepared),
    ("sandbox", _sandbox),
    ("running", _running),
    ("devices", _devices),
)


# ---------------------------------------------------------------------------------- the readings


def owner_chain(snapshot: Snapshot, pod: Pod) -> list[Workload]:
    """The Pod's controller owner, its owner, and so on (ReplicaSet, then Deployment), as read."""
    index = snapshot.memo(
        "workloads-by-key", lambda: {(w.namespace, w.kind, w.name): w for w in snapshot.workloads}
    )
    chain: list[Workload] = []
    kind, name = pod.owner_kind, pod.owner_name
    while kind and name and len(chain) < 8:
        found = index.get((pod.namespace, kind, name))
        if found is None:
            break
        chain.append(found)
        kind, name = found.owner_kind, found.owner_name
    return chain


def recreated_siblings(snapshot: Snapshot, pod: Pod) -> list[str]:
    """Failed Pods of the same owner (same generateName): a controller re-creating Pods in a loop."""
    if not pod.generate_name or not pod.owner_name:
        return []
    failed = snapshot.memo("failed-pods-by-generate-name", lambda: _failed_by_generate_name(snapshot))
    if not failed:
        return []  # no Failed Pod in the cluster (most of them)
    return sorted(
        p.name for p in failed.get((pod.namespace, pod.generate_name, pod.owner_name), ()) if p is not pod
    )


def _failed_by_generate_name(snapshot: Snapshot) -> dict[tuple[str, str, str], list[Pod]]:
    """(namespace, generateName, owner) -> its Failed Pods, indexed once: `check` asks for every Pod."""
    out: dict[tuple[str, str, str], list[Pod]] = {}
    for p in snapshot.pods:
        if p.phase == "Failed" and p.generate_name and p.owner_name:
            out.setdefault((p.namespace, p.generate_name, p.owner_name), []).append(p)
    return out


def _reserved_for(claim: Any, pod: Pod) -> bool:
    for entry in claim.reserved_for:
        if not isinstance(entry, dict):
            continue
        if (pod.uid and entry.get("uid") == pod.uid) or entry.get("name") == pod.name:
            return True
    return False


def _failed_in_prebind(ctx: PodContext) -> bool:
    """The scheduler's last word is a PreBind failure (`running PreBind plugin "DynamicResources": ...`,
    dra-facts-136.md): the claims were allocated and reserved, then released when binding failed."""
    scheduled = ctx.pod.conditions.get("PodScheduled")
    texts = [scheduled.message] if scheduled is not None and scheduled.status == "False" else []
    texts += [e.message for e in _warnings(ctx.events, frozenset({"FailedScheduling"}))[:1]]
    return any(PREBIND_MARK in text for text in texts)


def _scheduled_events(ctx: PodContext) -> list[Event]:
    return [e for e in ctx.events if e.reason == "Scheduled"]


def _scheduler_spoke(ctx: PodContext, name: str) -> bool:
    """The scheduler wrote about this Pod: its PodScheduled condition, or its events."""
    if ctx.pod.conditions.get("PodScheduled") is not None:
        return True
    return any(e.reason in ("FailedScheduling", "Scheduled") for e in ctx.events)


def _placed_by_scheduler(snapshot: Snapshot) -> dict[str, int]:
    counts: dict[str, int] = {}
    for p in snapshot.pods:
        if p.node_name:
            counts[p.scheduler_name] = counts.get(p.scheduler_name, 0) + 1
    return counts


def _scheduler_pods(snapshot: Snapshot, name: str) -> list[Pod]:
    """kube-scheduler's Pods in kube-system (kubeadm labels them component=kube-scheduler), found once."""
    if name != DEFAULT_SCHEDULER:
        return []
    return snapshot.memo(
        "kube-scheduler-pods",
        lambda: [
            p
            for p in snapshot.pods
            if p.namespace == "kube-system" and p.labels.get("component") == SCHEDULER_COMPONENT
        ],
    )


def _lease_of(snapshot: Snapshot, name: str) -> Any:
    wanted = SCHEDULER_LEASE if name == DEFAULT_SCHEDULER else ("kube-system", name)
    return next((le for le in snapshot.leases if (le.namespace, le.name) == wanted), None)


def _scheduler_known(snapshot: Snapshot, name: str) -> bool:
    """A scheduler of this name shows it runs: its Lease, or events it reported (Pods it placed once
    prove only that it ran then)."""
    if any(le.name == name for le in snapshot.leases):
        return True
    reported = snapshot.memo("event-sources", lambda: {e.source for e in snapshot.events})
    return name in reported


def _sandbox_ready(pod: Pod) -> bool:
    ready = pod.conditions.get("PodReadyToStartContainers")
    if ready is not None:
        return ready.status == "True"
    return any(s.state in ("running", "terminated") or s.restart_count for s in pod.container_states) or any(
        s.state == "waiting" and s.reason not in _STARTING for s in pod.container_states
    )


def _mentions_prepare(event: Event) -> bool:
    from kubectl_rbln.diagnose.events import classify_event  # noqa: PLC0415

    return classify_event(event).kind == "kubelet"


def _troubled(state: ContainerState) -> bool:
    if state.state == "waiting" and state.reason not in _STARTING:
        return True
    if state.state == "terminated" and state.reason not in ("Completed",):
        return True
    return state.restart_count > 0 and not state.ready


def events_of(snapshot: Snapshot, namespace: str, kind: str, name: str) -> list[Event]:
    return [e for _, e in events_by_object(snapshot).get((namespace, kind, name), ())]
