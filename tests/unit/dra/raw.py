"""Raw API objects (resource.k8s.io/v1 shapes) normalized the way every command reads them."""

from __future__ import annotations

from typing import Any

from kubectl_rbln.dra.allocator import ClaimToAllocate
from kubectl_rbln.dra.model import Device, DeviceClass, Node, ResourceSlice
from kubectl_rbln.dra.normalize_claims import normalize_claim_spec
from kubectl_rbln.dra.normalize_others import normalize_node
from kubectl_rbln.dra.normalize_slices import normalize_class, normalize_slice

NPU = "npu.rebellions.ai"
NUMA = "resource.kubernetes.io/numaNode"


def attr(value: Any) -> dict[str, Any]:
    """An attribute entry as the API stores it: {int|bool|string: value}; a tuple ("version", text)."""
    if isinstance(value, tuple):
        return {value[0]: value[1]}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    return {"string": value}


def raw_device(name: str, attributes: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if attributes:
        out["attributes"] = {k: v if isinstance(v, dict) else attr(v) for k, v in attributes.items()}
    out.update(extra)
    return out


def raw_slice(
    name: str,
    devices: list[dict[str, Any]],
    *,
    driver: str = NPU,
    pool: str = "node-1",
    node: str | None = "node-1",
    generation: int = 1,
    count: int = 1,
    **spec: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
        "devices": devices,
    }
    if node and not ({"allNodes", "nodeSelector", "perDeviceNodeSelection"} & spec.keys()):
        body["nodeName"] = node
    body.update(spec)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": body,
    }


def slice_(*args: Any, **kw: Any) -> ResourceSlice:
    return normalize_slice(raw_slice(*args, **kw))


def device(name: str, attributes: dict[str, Any] | None = None, driver: str = NPU, **extra: Any) -> Device:
    return slice_("s", [raw_device(name, attributes, **extra)], driver=driver).devices[0]


def node(name: str = "node-1", **labels: str) -> Node:
    return normalize_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}})


def device_class(name: str, *expressions: str) -> DeviceClass:
    return normalize_class(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in expressions]},
        }
    )


def npu_class() -> dict[str, DeviceClass]:
    return {NPU: device_class(NPU, f'device.driver == "{NPU}"')}


def exactly(name: str, count: int = 1, *selectors: str, cls: str = NPU, **more: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"deviceClassName": cls, "count": count, **more}
    if selectors:
        body["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"name": name, "exactly": body}


def claim(
    name: str,
    *requests: dict[str, Any],
    constraints: list[dict[str, Any]] | None = None,
    namespace: str = "ml",
) -> ClaimToAllocate:
    spec = {"devices": {"requests": list(requests), "constraints": list(constraints or [])}}
    return ClaimToAllocate(namespace=namespace, name=name, spec=normalize_claim_spec(spec))
