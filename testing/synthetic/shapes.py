"""Re-express v1 resource.k8s.io objects in the v1beta2 and v1beta1 shapes (dra-facts §4).

Why: the builder writes every object once, in v1; the same cluster in an older API version
differs only in the apiVersion (v1beta2) or also in the nesting (v1beta1: `basic:` devices,
flat requests with deviceClassName).
"""

from __future__ import annotations

from typing import Any

from testing.synthetic.knobs import API_VERSIONS


def to_api_shape(obj: dict[str, Any], api_version: str) -> dict[str, Any]:
    """A v1 resource.k8s.io object in v1beta2 (same nesting) or v1beta1 (`basic:`, flat requests)."""
    if api_version not in API_VERSIONS:
        raise ValueError(f"unknown api_version {api_version!r}; expected one of {', '.join(API_VERSIONS)}")
    if not str(obj.get("apiVersion", "")).startswith("resource.k8s.io/") or api_version == "v1":
        return obj
    out = dict(obj, apiVersion=f"resource.k8s.io/{api_version}")
    if api_version == "v1beta2":
        return out
    kind = obj["kind"]
    if kind == "ResourceSlice":
        spec = dict(obj["spec"])
        spec["devices"] = [
            {"name": d["name"], "basic": {k: v for k, v in d.items() if k != "name"}} for d in spec["devices"]
        ]
        out["spec"] = spec
    elif kind == "ResourceClaim":
        out["spec"] = _flatten_requests(obj["spec"])
    elif kind == "ResourceClaimTemplate":
        out["spec"] = dict(obj["spec"], spec=_flatten_requests(obj["spec"]["spec"]))
    return out


def _flatten_requests(claim_spec: dict[str, Any]) -> dict[str, Any]:
    devices = dict(claim_spec["devices"])
    requests = []
    for request in devices["requests"]:
        flat = {k: v for k, v in request.items() if k != "exactly"}
        flat.update(request.get("exactly", {}))
        requests.append(flat)
    devices["requests"] = requests
    return dict(claim_spec, devices=devices)
