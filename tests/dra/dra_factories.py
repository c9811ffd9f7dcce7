"""Small builders of model objects for the DRA engine tests (no API dicts, no mocks)."""

from __future__ import annotations

from typing import Any

from kubectl_rbln.dra.allocator import ClaimToAllocate
from kubectl_rbln.dra.model import (
    AttrValue,
    ClaimSpec,
    Constraint,
    Device,
    DeviceClass,
    ExactRequest,
    Node,
    Request,
    ResourceSlice,
)


def device(
    name: str,
    driver: str = "driver-a",
    attrs: dict[str, AttrValue] | None = None,
    capacity: dict[str, str] | None = None,
    taints: list[dict[str, Any]] | None = None,
) -> Device:
    """A device; unqualified attribute/capacity names get the driver's domain, as the model does."""

    def qualify(names: dict[str, Any]) -> dict[str, Any]:
        return {k if "/" in k else f"{driver}/{k}": v for k, v in names.items()}

    return Device(
        name=name,
        driver=driver,
        pool="",
        slice_name="",
        node_name=None,
        attributes=qualify(attrs or {}),
        capacity=qualify(capacity or {}),
        taints=list(taints or []),
    )


def slice_(
    name: str,
    devices: list[Device],
    *,
    pool: str = "pool-1",
    driver: str = "driver-a",
    node: str | None = "node-1",
    all_nodes: bool = False,
    node_selector: dict[str, Any] | None = None,
    generation: int = 1,
    count: int = 1,
) -> ResourceSlice:
    for d in devices:
        d.driver, d.pool, d.slice_name, d.node_name = driver, pool, name, node
    return ResourceSlice(
        name=name,
        driver=driver,
        pool=pool,
        generation=generation,
        resource_slice_count=count,
        node_name=None if all_nodes or node_selector else node,
        all_nodes=all_nodes,
        node_selector=node_selector,
        per_device_node_selection=False,
        devices=devices,
    )


def node(name: str = "node-1", **labels: str) -> Node:
    return Node(name=name, labels=dict(labels), taints=[], allocatable={})


NODE_1 = dict(region="region-1", planet="earth")


def klass(name: str, *selectors: str) -> DeviceClass:
    return DeviceClass(name=name, selectors=list(selectors))


def classes(**more: str) -> dict[str, DeviceClass]:
    out = {
        "class-a": klass("class-a", 'device.driver == "driver-a"'),
        "class-b": klass("class-b", 'device.driver == "driver-b"'),
    }
    out.update({k: klass(k, v) for k, v in more.items()})
    return out


def exact(
    cls: str = "class-a",
    count: int = 1,
    *selectors: str,
    mode: str = "ExactCount",
    admin: bool = False,
    tolerations: list[dict[str, Any]] | None = None,
    name: str = "",
) -> ExactRequest:
    return ExactRequest(
        device_class=cls,
        selectors=list(selectors),
        allocation_mode=mode,
        count=count,
        admin_access=admin,
        tolerations=list(tolerations or []),
        name=name,
    )


def request(name: str, cls: str = "class-a", count: int = 1, *selectors: str, **kw: Any) -> Request:
    return Request(name=name, exactly=exact(cls, count, *selectors, **kw))


def first_available(name: str, *subs: ExactRequest) -> Request:
    return Request(name=name, exactly=None, first_available=list(subs))


def claim(
    name: str, *requests: Request, constraints: list[Constraint] | None = None, namespace: str = ""
) -> ClaimToAllocate:
    return ClaimToAllocate(
        namespace=namespace,
        name=name,
        spec=ClaimSpec(requests=list(requests), constraints=list(constraints or [])),
    )


def match(attribute: str, *requests: str) -> Constraint:
    return Constraint(requests=list(requests), match_attribute=attribute)


def distinct(attribute: str, *requests: str) -> Constraint:
    return Constraint(requests=list(requests), distinct_attribute=attribute)


def picked(result, claim_key: str = "claim-0") -> list[tuple[str, str, str]]:
    """(request, pool, device) of one claim's results."""
    return [(r.request, r.pool, r.device) for r in result.results[claim_key]]
