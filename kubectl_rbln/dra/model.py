"""The Snapshot: one typed, normalized shape for everything the checks read.

Whatever the source (a live cluster or a bundle) and whatever the API version
(resource.k8s.io v1beta1, v1beta2, v1), the checks only ever see these types:
- requests always have `exactly` or `first_available` (v1beta1's flat request
  becomes `exactly`),
- devices are flattened (v1beta1's `basic:` nesting is gone) and carry the
  slice's driver, pool and node,
- attribute and capacity names are qualified with the driver's domain,
- attribute values are typed (int, bool, str, Version), capacities stay
  quantity strings.
Nothing downstream sees raw API dicts, except `raw` kept for evidence output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Version:
    """A semantic-version attribute value (`{version: 1.2.3}`); compares as text, like the allocator."""

    text: str

    def __str__(self) -> str:
        return self.text


AttrValue = int | bool | str | Version


@dataclass(frozen=True, slots=True)
class CounterSet:
    """A slice's `sharedCounters[]` entry (CounterSet) or a device's `consumesCounters[]` entry
    (DeviceCounterConsumption): a counter set name and counter name -> exact quantity
    (Counter{Value}), kubernetes/api resource/{v1,v1beta2,v1beta1}/types.go at v0.36.2."""

    name: str
    counters: dict[str, Fraction]


@dataclass(frozen=True, slots=True)
class RequestPolicy:
    """A device capacity's `requestPolicy` (CapacityRequestPolicy, DRAConsumableCapacity, kubernetes/api
    resource/v1/types.go at v0.36.2): the value a request without one consumes (`default`), and either
    the values a request may consume (`validValues`, ascending) or a range (`validRange` min/max/step)."""

    default: Fraction | None = None
    valid_values: tuple[Fraction, ...] = ()
    has_range: bool = False
    min: Fraction | None = None
    max: Fraction | None = None
    step: Fraction | None = None


@dataclass(slots=True)
class Device:
    name: str
    driver: str
    pool: str
    slice_name: str
    node_name: str | None  # the slice's nodeName (or the device's own, per-device node selection)
    attributes: dict[str, AttrValue]  # fully qualified: dra.net/rdma, resource.kubernetes.io/numaNode
    capacity: dict[str, str]  # fully qualified name -> quantity text ("64Gi")
    taints: list[dict[str, Any]] = field(default_factory=list)  # from the ResourceSlice (its driver)
    # (DeviceTaintRule name, taint) of every rule whose deviceSelector matches this device; the
    # allocator honours them only with DRADeviceTaintRules (Features.device_taint_rules)
    rule_taints: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # KEP-5007 device binding conditions (kubernetes/api resource/v1/types.go, Device, at v0.36.0):
    # condition types that must be True (bindingConditions) or must not be True
    # (bindingFailureConditions) in the claim's status.devices before the Pod is bound; bindsToNode
    # pins the allocation's node selector to the chosen node
    binding_conditions: list[str] = field(default_factory=list)
    binding_failure_conditions: list[str] = field(default_factory=list)
    binds_to_node: bool = False
    allow_multiple_allocations: bool = False  # DRAConsumableCapacity: a shared device
    # DRAConsumableCapacity: fully qualified capacity name -> its requestPolicy (when it has one)
    request_policies: dict[str, RequestPolicy] = field(default_factory=dict)
    bad_attributes: list[str] = field(default_factory=list)  # entries with no or several value types
    # DRAPartitionableDevices: `consumesCounters` (counterSet -> counters), API order
    consumes_counters: list[CounterSet] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, str]:
        """The allocator's device id: driver/pool/device."""
        return (self.driver, self.pool, self.name)

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.pool}/{self.name}"


@dataclass(slots=True)
class ResourceSlice:
    name: str
    driver: str
    pool: str
    generation: int
    resource_slice_count: int
    node_name: str | None
    all_nodes: bool
    node_selector: dict[str, Any] | None
    per_device_node_selection: bool
    devices: list[Device]
    shared_counters: list[dict[str, Any]] = field(default_factory=list)
    api_version: str = ""
    counter_sets: list[CounterSet] = field(default_factory=list)  # `sharedCounters`, typed
    # its slice type (dra/node_types.py), -1: none; not part of what the slice says
    type_id: int = field(default=-1, repr=False, compare=False)

    @property
    def has_counters(self) -> bool:
        return bool(self.counter_sets or self.shared_counters)

    def any_devices(self) -> bool:
        """Whether it lists a device (a typed slice answers without building its devices)."""
        return bool(self.devices)

    def device_names(self) -> list[str]:
        """Its devices' names, in order (a typed slice answers from its type, dra/node_types.py)."""
        return [d.name for d in self.devices]

    @property
    def devices_plain(self) -> bool:
        """True when it is known without building its devices that none has taints, binding
        conditions, counters, a node of its own or shared allocation (a typed slice, whose layout
        says so); False: read them."""
        return False


@dataclass(slots=True)
class DeviceTaintRule:
    """resource.k8s.io DeviceTaintRule (v1alpha3 in 1.33/1.34, v1beta2 from 1.35): one taint for every
    device its selector matches (kubernetes/api resource/v1beta2/types.go at v0.36.2). A selector
    field that is None matches any value; a rule without a selector matches every device, as the
    scheduler's tracker applies it (dynamic-resource-allocation resourceslice/tracker/tracker.go
    `applyPatches`, v0.36.2)."""

    name: str
    driver: str | None
    pool: str | None
    device: str | None
    taint: dict[str, Any]
    api_version: str = ""

    def matches(self, driver: str, pool: str, device: str) -> bool:
        return (
            (self.driver is None or self.driver == driver)
            and (self.pool is None or self.pool == pool)
            and (self.device is None or self.device == device)
        )


@dataclass(slots=True)
class ExactRequest:
    """One concrete way to satisfy a request: `exactly`, or one `firstAvailable` entry."""

    device_class: str
    selectors: list[str]  # CEL expressions; a selector without `cel` is kept as "" (an allocator error)
    allocation_mode: str = "ExactCount"  # "ExactCount" | "All" | anything else (an allocator error)
    count: int = 1
    admin_access: bool = False
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    capacity: dict[str, Any] | None = (
        None  # `capacity` (CapacityRequirements) as written, DRAConsumableCapacity
    )
    name: str = ""  # subrequest name; "" for `exactly`

    @property
    def capacity_requests(self) -> dict[str, str]:
        """`capacity.requests`: capacity name (as written) -> quantity text."""
        requests = (self.capacity or {}).get("requests")
        if not isinstance(requests, dict):
            return {}
        return {str(k): str(v) for k, v in requests.items() if isinstance(v, (str, int, float))}


@dataclass(slots=True)
class Request:
    name: str
    exactly: ExactRequest | None
    first_available: list[ExactRequest] = field(default_factory=list)

    @property
    def alternatives(self) -> list[ExactRequest]:
        """What the allocator tries, in order."""
        return [self.exactly] if self.exactly is not None else list(self.first_available)


@dataclass(slots=True)
class Constraint:
    requests: list[str]  # empty: applies to every request of the claim
    match_attribute: str | None = None
    distinct_attribute: str | None = None


@dataclass(slots=True)
class ClaimSpec:
    requests: list[Request]
    constraints: list[Constraint]
    config: list[dict[str, Any]] = field(default_factory=list)
    # what the API server never stores ("devices.requests[0].exactly.count is 1.5, not a positive
    # integer"): a `malformed` problem of the claim or RCT, and the spec is not simulated
    impossible: tuple[str, ...] = ()


@dataclass(slots=True)
class AllocationResult:
    request: str  # "req" or "req/sub"
    driver: str
    pool: str
    device: str
    admin_access: bool = False
    share_id: str | None = None
    # DRAConsumableCapacity: what this share of a device consumes (capacity name as written -> quantity
    # text), DeviceRequestAllocationResult.ConsumedCapacity, kubernetes/api resource/v1/types.go v0.36.2
    consumed_capacity: dict[str, str] = field(default_factory=dict)
    # copies of the device's bindingConditions / bindingFailureConditions at allocation time
    # (DeviceRequestAllocationResult, kubernetes/api resource/v1/types.go at v0.36.0)
    binding_conditions: list[str] = field(default_factory=list)
    binding_failure_conditions: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.driver, self.pool, self.device)


@dataclass(slots=True)
class Allocation:
    results: list[AllocationResult]
    node_selector: dict[str, Any] | None = None
    allocation_timestamp: str = ""  # status.allocation.allocationTimestamp (RFC 3339), "" when unset


@dataclass(slots=True)
class AllocatedDeviceStatus:
    """One entry of a claim's status.devices (AllocatedDeviceStatus, kubernetes/api resource/v1/types.go
    at v0.36.0): the driver's or a controller's conditions about one allocated device."""

    driver: str
    pool: str
    device: str
    share_id: str | None = None
    conditions: list[Condition] = field(default_factory=list)
    # networkData.interfaceName: the name a network driver gave the device inside the Pod (dranet
    # writes it once it moved the netdev: google/dranet pkg/driver/nri_hooks.go WithNetworkData)
    interface_name: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.driver, self.pool, self.device)

    def condition(self, type_: str) -> Condition | None:
        return next((c for c in self.conditions if c.type == type_), None)


@dataclass(slots=True)
class ResourceClaim:
    name: str
    namespace: str
    uid: str
    spec: ClaimSpec
    allocation: Allocation | None
    reserved_for: list[dict[str, Any]]
    owner_pod: str | None  # controller owner of kind Pod
    pod_claim_name: str | None  # annotation resource.kubernetes.io/pod-claim-name
    deleting: bool = False
    deletion_timestamp: str = ""  # metadata.deletionTimestamp (issue 12, 4: claim-being-deleted)
    finalizers: list[str] = field(default_factory=list)  # what keeps a deleted claim in place
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    devices: list[AllocatedDeviceStatus] = field(default_factory=list)  # status.devices
    created: str = ""  # metadata.creationTimestamp: older than its RCT means a stale claim (claim-stale)

    def device_status(self, driver: str, pool: str, device: str) -> AllocatedDeviceStatus | None:
        """The status.devices entry of one allocated device (the scheduler's getAllocatedDeviceStatus)."""
        return next((d for d in self.devices if d.key == (driver, pool, device)), None)


@dataclass(slots=True)
class ResourceClaimTemplate:
    name: str
    namespace: str
    spec: ClaimSpec
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    created: str = ""  # metadata.creationTimestamp (RFC 3339)


@dataclass(slots=True)
class DeviceClass:
    name: str
    selectors: list[str]
    extended_resource_name: str | None = None
    config: list[dict[str, Any]] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(slots=True)
class PodClaimRef:
    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


@dataclass(frozen=True, slots=True)
class ResourceHealth:
    """One device's health in a container's `allocatedResourcesStatus` (KEP-4680; kubernetes/api
    core/v1/types.go at v0.36.0: ResourceStatus.Name is "claim:<claim>/<request>", ResourceHealth
    has resourceID "<driver>/<pool>/<device>", health Healthy|Unhealthy|Unknown and, with the gate
    ResourceHealthStatusMessage, a message)."""

    name: str
    resource_id: str
    health: str
    message: str = ""


@dataclass(slots=True)
class ContainerState:
    """A container's current and last state, reduced to what a diagnosis reads."""

    name: str
    ready: bool = False
    restart_count: int = 0
    state: str = ""  # "running" | "waiting" | "terminated" | ""
    reason: str = ""  # e.g. CrashLoopBackOff, Error, OOMKilled
    message: str = ""
    last_reason: str = ""
    last_exit_code: int | None = None
    health: list[ResourceHealth] = field(default_factory=list)  # status.allocatedResourcesStatus


@dataclass(slots=True)
class Container:
    name: str
    requests: dict[str, str] = field(default_factory=dict)
    limits: dict[str, str] = field(default_factory=dict)
    claims: list[dict[str, str]] = field(default_factory=list)  # {name, request?}
    run_as_user: int | None = None


@dataclass(slots=True)
class Condition:
    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_transition_time: str = ""


@dataclass(slots=True)
class Pod:
    name: str
    namespace: str
    uid: str
    phase: str
    node_name: str | None
    labels: dict[str, str]
    node_selector: dict[str, str]
    affinity: dict[str, Any]
    tolerations: list[dict[str, Any]]
    resource_claims: list[PodClaimRef]
    claim_statuses: dict[str, str | None]  # pod claim name -> generated claim name (None: not needed)
    conditions: dict[str, Condition]
    containers: list[Container]
    container_states: list[ContainerState]
    run_as_user: int | None = None  # pod-level securityContext.runAsUser
    scheduler_name: str = "default-scheduler"
    generate_name: str = ""  # metadata.generateName: Pods of one ReplicaSet or Job share it
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    host_network: bool = False  # spec.hostNetwork: dranet cannot move a NIC into the host's namespace
    owner_kind: str = ""  # the controller owner (DaemonSet for a driver's kubelet plugin Pod)
    owner_name: str = ""
    # the Pod's life (diagnose/lifecycle.py): when it was made and deleted, what holds it from the
    # scheduling queue, and the reason/message the kubelet writes when it refuses a Pod (status.reason)
    created: str = ""  # metadata.creationTimestamp
    deletion_timestamp: str = ""  # metadata.deletionTimestamp: set while it is being deleted
    scheduling_gates: tuple[str, ...] = ()  # spec.schedulingGates[].name
    reason: str = ""  # status.reason, e.g. UnexpectedAdmissionError, Evicted, NodeAffinity
    message: str = ""  # status.message, verbatim

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(slots=True)
class Workload:
    """A Pod's owner (ReplicaSet, Deployment, StatefulSet, Job, CronJob) or a driver's workload
    (DaemonSet, Deployment): what creates the Pods, or keeps a driver from running, as its status says."""

    kind: str
    name: str
    namespace: str
    uid: str = ""
    owner_kind: str = ""  # its controller owner (a ReplicaSet's Deployment)
    owner_name: str = ""
    desired: int | None = None  # spec.replicas | status.desiredNumberScheduled | spec.parallelism
    current: int | None = None  # status.replicas | currentNumberScheduled | active
    ready: int | None = None  # readyReplicas | numberReady | ready
    unavailable: int | None = None  # DaemonSet numberUnavailable, Deployment unavailableReplicas
    conditions: dict[str, Condition] = field(default_factory=dict)
    claim_refs: list[PodClaimRef] = field(default_factory=list)  # spec.template.spec.resourceClaims
    labels: dict[str, str] = field(default_factory=dict)
    created: str = ""
    deletion_timestamp: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(slots=True)
class Lease:
    """A coordination.k8s.io Lease: a scheduler's leader election (kube-system/kube-scheduler) says
    whether one is running, against the time of the read."""

    name: str
    namespace: str
    holder: str = ""  # spec.holderIdentity
    renew_time: str = ""  # spec.renewTime (RFC 3339, microseconds)
    duration_seconds: int | None = None  # spec.leaseDurationSeconds


@dataclass(slots=True)
class ResourceQuota:
    """A namespace's ResourceQuota: what admission refuses a Pod or a ResourceClaim for."""

    name: str
    namespace: str
    hard: dict[str, str] = field(default_factory=dict)  # status.hard (else spec.hard)
    used: dict[str, str] = field(default_factory=dict)  # status.used


@dataclass(slots=True)
class LimitRange:
    """A namespace's LimitRange: admission defaults and refuses container resources by it."""

    name: str
    namespace: str
    limits: list[dict[str, Any]] = field(default_factory=list)  # spec.limits, as read


@dataclass(slots=True)
class Namespace:
    """A Namespace, for its labels (resource.kubernetes.io/admin-access gates adminAccess requests)."""

    name: str
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Node:
    name: str
    labels: dict[str, str]
    taints: list[dict[str, Any]]
    allocatable: dict[str, str]
    unschedulable: bool = False
    ready: bool = True
    kubelet_version: str = ""
    container_runtime: str = ""  # status.nodeInfo.containerRuntimeVersion, e.g. "containerd://1.7.22"


@dataclass(slots=True)
class Event:
    namespace: str
    involved_kind: str
    involved_name: str
    involved_namespace: str
    reason: str
    message: str
    type: str = "Normal"
    count: int = 1
    last_timestamp: str = ""
    source: str = ""  # reporting component (default-scheduler, kubelet, resource-claim controller...)
    first_timestamp: str = ""  # eventTime, else firstTimestamp (kubectl's "over" of "x82 over 2h")


@dataclass(slots=True)
class PodLog:
    """A container log captured by `dump` (kind PodLog, apiVersion kubectl-rbln/v1)."""

    namespace: str
    pod: str
    container: str
    previous: bool
    log: str


@dataclass(slots=True)
class ExecCapture:
    """A command's result captured by `dump` (kind ExecCapture, apiVersion kubectl-rbln/v1)."""

    namespace: str
    pod: str
    container: str
    command: list[str]
    stdout: str
    stderr: str
    exit_code: int
    error_reason: str = ""  # the exec never ran to an exit code: forbidden | timeout | too-large | ...
    error: str = ""  # its one line, as the live run printed it
    error_values: dict[str, Any] = field(default_factory=dict)  # the values its words need (timeout ...)


@dataclass(slots=True)
class SourceProblem:
    """Something the source could not read; degrades one check, not the command."""

    kind: str  # e.g. "ResourceClaim"
    message: str  # one line: "list resourceclaims.resource.k8s.io at the cluster scope: forbidden"
    # "forbidden" | "not-served" | "error" | "malformed" (an object of the wrong shape or an impossible
    # value) | "missing" (answered, but with none of this kind where some must be: cluster/read_gaps.py)
    # | "timeout" | "too-large" | "encoding" (a live list that broke a bound of cluster/bounded.py)
    code: str = "error"
    name: str = ""  # "malformed": the object's namespace/name


# The codes of a SourceProblem whose list never came back (cluster/bounded.py's bounds included).
REFUSED_CODES = frozenset({"forbidden", "error", "timeout", "too-large", "encoding"})


@dataclass(slots=True)
class Snapshot:
    """Everything one command reads, taken once; every check is a pure function of it."""

    nodes: dict[str, Node] = field(default_factory=dict)
    pods: list[Pod] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    claims: list[ResourceClaim] = field(default_factory=list)
    templates: list[ResourceClaimTemplate] = field(default_factory=list)
    device_classes: dict[str, DeviceClass] = field(default_factory=dict)
    slices: list[ResourceSlice] = field(default_factory=list)
    taint_rules: list[DeviceTaintRule] = field(default_factory=list)
    logs: list[PodLog] = field(default_factory=list)
    captures: list[ExecCapture] = field(default_factory=list)
    namespaces: dict[str, Namespace] = field(default_factory=dict)  # empty: not read (or forbidden)
    workloads: list[Workload] = field(default_factory=list)  # owners of Pods, drivers' workloads
    leases: list[Lease] = field(default_factory=list)  # schedulers' leader election (kube-system)
    quotas: list[ResourceQuota] = field(default_factory=list)
    limit_ranges: list[LimitRange] = field(default_factory=list)
    read_at: str = ""  # when the objects were read (ClusterInfo readAt; RFC 3339), "" when unknown
    resource_api_version: str | None = None  # newest resource.k8s.io version seen or served
    server_version: str | None = None  # e.g. "v1.34.2" (live), None offline unless known
    problems: list[SourceProblem] = field(default_factory=list)
    # a `dump` bundle's scope (ClusterInfo `scope.namespaces`): the namespaces it read; None: all, or unknown
    dump_namespaces: tuple[str, ...] | None = None
    from_dump: bool = False  # a ClusterInfo was read: a list it lacks was read empty, or is a problem
    notes: list[str] = field(default_factory=list)  # what reading the input decided (duplicates kept)
    source: str = ""  # "cluster <context>" or "files a.json, b.yaml"
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def memo(self, key: str, build: Callable[[], T]) -> T:
        """A fact derived from the whole snapshot (an index, devices per driver), computed once.

        `check` diagnoses thousands of Pods against one snapshot: per-Pod checks must not
        rescan every node and slice. The snapshot is not changed after it is built.
        """
        if key not in self.derived:
            self.derived[key] = build()
        return self.derived[key]

    def pod(self, namespace: str, name: str) -> Pod | None:
        return self.memo("pods-by-key", lambda: {(p.namespace, p.name): p for p in self.pods}).get(
            (namespace, name)
        )

    def claim(self, namespace: str, name: str) -> ResourceClaim | None:
        index = self.memo("claims-by-key", lambda: {(c.namespace, c.name): c for c in self.claims})
        return index.get((namespace, name))

    def template(self, namespace: str, name: str) -> ResourceClaimTemplate | None:
        index = self.memo("templates-by-key", lambda: {(t.namespace, t.name): t for t in self.templates})
        return index.get((namespace, name))

    def refused(self, kind: str) -> SourceProblem | None:
        """The problem that says the list of `kind` was refused or not read whole: no list at all, which
        is not a list of none ("not-served" is an answer: the API is not there)."""
        for problem in self.problems:
            if problem.kind == kind and problem.code in REFUSED_CODES:
                return problem
        return None

    def problem_for(self, kind: str) -> SourceProblem | None:
        for problem in self.problems:
            if problem.kind == kind:
                return problem
        return None
