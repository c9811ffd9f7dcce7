"""The wire shapes of the objects a Snapshot reads most of: only the fields the normalizers read.

Why: at 5,000 nodes, building a Python dict for every field of every Pod, claim and slice cost more
than everything the diagnosis does afterwards (docs/performance.md, issue 16). msgspec decodes
straight into these shapes and skips every other field in C. Each container type on the paths that
`shapes.SHAPES` checks is declared here, so an object that decodes is well-formed by construction;
one that does not (a wrong type anywhere below) is decoded again the plain way by the caller and
normalized exactly as before, malformed-object report included. Leaves are `Any`: the normalizers
already read them defensively, and `Any` decodes exactly like `json.loads`.

Devices are `DeviceWire` structs rather than dicts (they are 90% of a big cluster's bytes);
`normalize_slices.normalize_device` reads both shapes to the same `Device`. Sub-trees that repeat byte for
byte across objects (a claim's spec, a Pod's template parts) are `msgspec.Raw`: their shape is
checked where they are normalized, once per distinct text, and the `-f` reader does that while
decoding (cluster/wire_read.py), so a malformed one is still read the plain way and reported. A
claim's status, Pod and Node conditions are structs: only their normalizer reads them, and tells
them from plain dicts by their type.
"""

from __future__ import annotations

from typing import Any, TypedDict

import msgspec

NO_RAW = msgspec.Raw()  # a field that was absent (empty: falsy)


class AttributeWire(msgspec.Struct, gc=False):
    """One DeviceAttribute: exactly one of the four set, else a bad attribute (as `typed_value`).
    Not tracked by the cyclic GC (`gc=False`): it holds only numbers and texts, never a cycle, and a
    million of them come and go at 5,000 nodes."""

    int_: int | None = msgspec.field(default=None, name="int")
    bool_: bool | None = msgspec.field(default=None, name="bool")
    string: str | None = None
    version: str | None = None


class DeviceWire(msgspec.Struct):
    """A v1/v1beta2 Device, or a v1beta1 one with `basic` (read the plain way, as a dict)."""

    name: Any = None
    basic: Any = None
    attributes: dict[str, AttributeWire] | None = None
    # its bytes: devices of one model publish the same capacities, normalized once per distinct text
    capacity: msgspec.Raw = NO_RAW
    nodeName: Any = None  # noqa: N815 - the API's field name
    taints: Any = None
    bindingConditions: Any = None  # noqa: N815
    bindingFailureConditions: Any = None  # noqa: N815
    bindsToNode: Any = None  # noqa: N815
    allowMultipleAllocations: Any = None  # noqa: N815
    consumesCounters: Any = None  # noqa: N815


class OwnerWire(msgspec.Struct, gc=False):
    """An ownerReference: which one is the controller, and its kind and name (its uid is not read)."""

    kind: Any = None
    name: Any = None
    controller: Any = None


class ClaimMetaWire(TypedDict, total=False):
    """What is read of a claim's metadata: not its labels, generateName or owners' uids, which differ
    from claim to claim and would keep two claims of one template apart (cluster/wire_templates.py)."""

    name: Any
    namespace: Any
    uid: Any
    resourceVersion: Any
    annotations: Any
    ownerReferences: list[OwnerWire]
    deletionTimestamp: Any
    finalizers: Any
    creationTimestamp: Any


class NodeMetaWire(TypedDict, total=False):
    """What is read of a Node's metadata: its name and labels (namespace and resourceVersion tell
    duplicates), not its uid, annotations or timestamps."""

    name: Any
    namespace: Any
    resourceVersion: Any
    labels: Any


class PoolWire(TypedDict, total=False):
    name: Any
    generation: Any
    resourceSliceCount: Any


class SliceSpecWire(TypedDict, total=False):
    driver: Any
    pool: PoolWire
    nodeName: Any
    allNodes: Any
    nodeSelector: Any
    perDeviceNodeSelection: Any
    sharedCounters: Any
    devices: list[DeviceWire]


class SliceFileSpecWire(TypedDict, total=False):
    """A `-f` slice's spec: its devices kept as their JSON text, read by
    `normalize_slices.slice_devices_of` (a slice of a known type from its bytes,
    dra/slice_templates.py; the others decoded as SliceSpecWire's)."""

    driver: Any
    pool: PoolWire
    nodeName: Any
    allNodes: Any
    nodeSelector: Any
    perDeviceNodeSelection: Any
    sharedCounters: Any
    devices: msgspec.Raw


class SliceMetaWire(TypedDict, total=False):
    """What is read of a slice's metadata (its name; namespace and resourceVersion tell duplicates):
    not its owner references, labels or timestamps, 10,000 times at 5,000 nodes."""

    name: Any
    namespace: Any
    resourceVersion: Any


class SliceWire(TypedDict, total=False):
    apiVersion: Any
    kind: Any
    metadata: SliceMetaWire
    spec: SliceSpecWire


class SliceFileWire(TypedDict, total=False):
    apiVersion: Any
    kind: Any
    metadata: SliceMetaWire
    spec: SliceFileSpecWire


class ResourcesWire(TypedDict, total=False):
    requests: dict[str, Any]
    limits: dict[str, Any]
    claims: list[Any]


class ContainerWire(TypedDict, total=False):
    name: Any
    resources: ResourcesWire
    securityContext: Any


# A Pod's template parts: what a controller's Pods carry byte for byte (their bytes, normalized once per
# distinct text by `normalize_pods.pod_parts_of`, which checks them against these shapes)
POD_CONTAINERS = list[ContainerWire]
POD_CLAIMS = list[dict[str, Any]]


class PodMetaWire(TypedDict, total=False):
    name: Any
    namespace: Any
    uid: Any
    resourceVersion: Any
    generateName: Any
    labels: msgspec.Raw
    ownerReferences: msgspec.Raw
    creationTimestamp: Any
    deletionTimestamp: Any


class PodSpecWire(TypedDict, total=False):
    resourceClaims: msgspec.Raw  # POD_CLAIMS
    containers: msgspec.Raw  # POD_CONTAINERS
    nodeName: Any
    nodeSelector: msgspec.Raw
    affinity: msgspec.Raw
    tolerations: msgspec.Raw
    securityContext: msgspec.Raw
    schedulerName: Any
    hostNetwork: Any
    schedulingGates: Any


class ConditionWire(msgspec.Struct, frozen=True, gc=False):
    """A Pod condition without its times: hashable, so a Pod's conditions are normalized once per
    distinct list (`normalize_pods._pod_conditions`); a leaf that is not hashable is read one by one."""

    type_: Any = msgspec.field(default=None, name="type")
    status: Any = None
    reason: Any = None
    message: Any = None


class StateDetailWire(TypedDict, total=False):
    """A container state's detail: what is read of it (not its times or container ids)."""

    reason: Any
    message: Any
    exitCode: Any


class ContainerStateWire(TypedDict, total=False):
    running: StateDetailWire
    waiting: StateDetailWire
    terminated: StateDetailWire


class ContainerStatusWire(TypedDict, total=False):
    name: Any
    ready: Any
    restartCount: Any
    state: ContainerStateWire
    lastState: ContainerStateWire
    allocatedResourcesStatus: Any  # device health (KEP-4680), read by pod-devices


class PodStatusWire(TypedDict, total=False):
    phase: Any
    reason: Any
    message: Any
    resourceClaimStatuses: list[Any]
    conditions: list[ConditionWire]
    containerStatuses: list[ContainerStatusWire]
    initContainerStatuses: list[ContainerStatusWire]


class PodWire(TypedDict, total=False):
    apiVersion: Any
    kind: Any
    metadata: PodMetaWire
    spec: PodSpecWire
    status: PodStatusWire


class DeviceRequestsWire(TypedDict, total=False):
    requests: list[dict[str, Any]]
    constraints: list[Any]
    config: Any


class ClaimSpecWire(TypedDict, total=False):
    devices: DeviceRequestsWire


# A claim's status is a struct: only `normalize_claim` reads it, and knows by its type that every field
# has the type declared here (an absent field and a null one both read as absent, as in the plain path)


class ResultWire(msgspec.Struct, gc=False):
    """One allocation result; its four names are text (else the claim is read the plain way)."""

    request: str = ""
    driver: str = ""
    pool: str = ""
    device: str = ""
    adminAccess: Any = None  # noqa: N815 - the API's field name
    shareID: Any = None  # noqa: N815
    consumedCapacity: Any = None  # noqa: N815
    bindingConditions: Any = None  # noqa: N815
    bindingFailureConditions: Any = None  # noqa: N815


class AllocationDevicesWire(msgspec.Struct, gc=False):
    results: list[ResultWire] | None = None


class AllocationWire(msgspec.Struct, gc=False):
    devices: AllocationDevicesWire | None = None
    # its bytes: the claims held on one node carry the same selector, decoded once per distinct text
    nodeSelector: msgspec.Raw = NO_RAW  # noqa: N815
    allocationTimestamp: Any = None  # noqa: N815


class ClaimStatusWire(msgspec.Struct, gc=False):
    allocation: AllocationWire | None = None
    reservedFor: list[dict[str, Any]] | None = None  # noqa: N815
    devices: Any = None


class ClaimWire(TypedDict, total=False):
    apiVersion: Any
    kind: Any
    metadata: ClaimMetaWire
    # its bytes: claims generated from one template carry the same spec, normalized once per distinct
    # text (`normalize_claims.claim_spec_of`); a spec that is not a ClaimSpecWire fails there, as here before
    spec: msgspec.Raw
    status: ClaimStatusWire


class NodeSpecWire(TypedDict, total=False):
    taints: list[Any]
    unschedulable: Any


class NodeConditionWire(msgspec.Struct, gc=False):
    """A Node condition: only whether it is Ready is read (its times and messages are skipped)."""

    type_: Any = msgspec.field(default=None, name="type")
    status: Any = None


class NodeInfoWire(TypedDict, total=False):
    kubeletVersion: Any
    containerRuntimeVersion: Any


class NodeStatusWire(TypedDict, total=False):
    conditions: list[NodeConditionWire]
    allocatable: dict[str, Any]
    nodeInfo: NodeInfoWire


class NodeWire(TypedDict, total=False):
    apiVersion: Any
    kind: Any
    metadata: NodeMetaWire
    spec: NodeSpecWire
    status: NodeStatusWire


class HeadWire(TypedDict, total=False):
    """Enough of any object to choose its shape."""

    kind: Any


# kind -> its wire shape; other kinds (few objects, some kept whole as `raw`) decode the plain way
WIRE_SHAPES: dict[str, Any] = {
    "Pod": PodWire,
    "ResourceSlice": SliceWire,
    "ResourceClaim": ClaimWire,
    "Node": NodeWire,
}


# what the `-f` reader decodes into (cluster/wire_read.py): a slice's devices as their text
FILE_SHAPES: dict[str, Any] = {**WIRE_SHAPES, "ResourceSlice": SliceFileWire}


# `continue` is a keyword; resourceVersion: where a watch of the list starts (cluster/follow.py)
_LIST_META = TypedDict("_LIST_META", {"continue": Any, "resourceVersion": Any}, total=False)


def page_shape(kind: str) -> Any:
    """A list page of `kind` (a live read): its items in their wire shape."""
    items: Any = list.__class_getitem__(WIRE_SHAPES[kind])
    fields = {"kind": Any, "apiVersion": Any, "metadata": _LIST_META, "items": items}
    return TypedDict(f"{kind}ListWire", fields, total=False)  # type: ignore[operator]
