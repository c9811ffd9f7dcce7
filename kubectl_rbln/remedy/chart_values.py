"""`suggest-rct --values FILE`: the chart values against the RCT they must agree with (seed 000/001).

Why: the chart references the RCT only by name and declares its own NPU count; a values file
that disagrees with the RCT gives Pods that never schedule or a chart that refuses to render.
The chart's own files are not public, so parallelism keys are found by name wherever the file
sets them (data/tensor/pipeline parallel size, in camelCase, snake_case or kebab-case).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.catalog import Phrase, say
from kubectl_rbln.domain import DEFAULT_RCT, NIC_RESOURCE_PREFIX

PARALLEL_KEY = re.compile(r"^(data|tensor|pipeline)[-_]?parallel(?:[-_]?size)?$", re.IGNORECASE)
SHORT_KEYS = {"dp": "data", "tp": "tensor", "pp": "pipeline"}


@dataclass(frozen=True, slots=True)
class ValuesCheck:
    """One rule over the values file; `message` is English (`-o json`), `phrase` says it in any language."""

    key: str
    ok: bool
    phrase: Phrase
    severity: str = "error"  # error | warning | info
    message: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", say(self.phrase, "en"))

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "ok": self.ok, "severity": self.severity, "message": self.message}


def _get(values: dict[str, Any], path: str) -> Any:
    node: Any = values
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def parallel_groups(values: Any, path: str = "") -> dict[str, dict[str, int]]:
    """parent path -> {data|tensor|pipeline: size} for every mapping that sets a parallel size."""
    groups: dict[str, dict[str, int]] = {}
    if not isinstance(values, dict):
        return groups
    own: dict[str, int] = {}
    for key, value in values.items():
        name = str(key)
        match = PARALLEL_KEY.match(name)
        kind = match.group(1).lower() if match else SHORT_KEYS.get(name.lower())
        if kind and isinstance(value, int) and not isinstance(value, bool):
            own[kind] = value
        elif isinstance(value, dict):
            groups.update(parallel_groups(value, f"{path}.{name}" if path else name))
    if own:
        groups[path or "(top level)"] = own
    return groups


def check_values(
    values: dict[str, Any], *, rct_name: str, npu_count: int, has_nic: bool, templates_in_namespace: list[str]
) -> list[ValuesCheck]:
    """Each rule of seed 000/001's key device settings, as one check with the value found."""
    checks: list[ValuesCheck] = []
    npu_mode = _get(values, "devices.npu.mode") or "dra"
    rdma_mode = _get(values, "devices.rdma.mode") or "dra"
    count = _get(values, "devices.npu.count")
    declared = 4 if count is None else count
    shown_count = Phrase("values-chart-default", {"value": declared}) if count is None else declared
    fix = "" if declared == npu_count else Phrase("values-set-npu-count", {"count": npu_count})
    checks.append(
        ValuesCheck(
            "devices.npu.count",
            declared == npu_count,
            Phrase("values-npu-count", {"declared": shown_count, "count": npu_count, "fix": fix}),
        )
    )
    for where, sizes in sorted(parallel_groups(values).items()):
        product = sizes.get("data", 1) * sizes.get("tensor", 1) * sizes.get("pipeline", 1)
        shown = " x ".join(f"{k} {sizes[k]}" for k in ("data", "tensor", "pipeline") if k in sizes)
        checks.append(
            ValuesCheck(
                f"{where} parallel sizes",
                product == declared,
                Phrase("values-parallel", {"shown": shown, "product": product, "declared": declared}),
            )
        )
    if npu_mode == "devicePlugin":
        checks.append(
            ValuesCheck(
                "devices.npu.mode",
                True,
                Phrase("values-npu-device-plugin"),
                severity="warning",
            )
        )
        if rdma_mode == "devicePlugin" and not _get(values, "devices.rdma.resourceName"):
            checks.append(
                ValuesCheck(
                    "devices.rdma.resourceName",
                    False,
                    Phrase("values-rdma-resource-missing", {"example": f"{NIC_RESOURCE_PREFIX}hca"}),
                )
            )
        return checks
    name = _get(values, "devices.claimTemplateName") or DEFAULT_RCT
    exists = name in templates_in_namespace
    rest: Phrase | str = ""
    if name != rct_name:
        rest = Phrase("values-template-other", {"rct": rct_name})
    key = "values-template-absent" if name == rct_name and not exists else "values-template-name"
    checks.append(
        ValuesCheck(
            "devices.claimTemplateName",
            name == rct_name,
            Phrase(key, {"name": name, "rest": rest}),
            severity="error" if name != rct_name else ("info" if exists else "warning"),
        )
    )
    enabled = _get(values, "devices.rdma.enabled")
    rdma_on = True if enabled is None else bool(enabled)
    if rdma_on and not has_nic:
        checks.append(
            ValuesCheck(
                "devices.rdma.enabled",
                False,
                Phrase("values-rdma-no-nic"),
            )
        )
    elif not rdma_on and has_nic:
        checks.append(
            ValuesCheck(
                "devices.rdma.enabled",
                False,
                Phrase("values-rdma-off-nic"),
                severity="warning",
            )
        )
    else:
        checks.append(
            ValuesCheck(
                "devices.rdma.enabled",
                True,
                Phrase(
                    "values-rdma-agrees-nic" if has_nic else "values-rdma-agrees-no-nic",
                    {"enabled": str(rdma_on).lower()},
                ),
            )
        )
    if rdma_mode == "devicePlugin":
        checks.append(
            ValuesCheck(
                "devices.rdma.mode",
                False,
                Phrase("values-rdma-mode-plugin"),
                severity="warning",
            )
        )
    return checks
