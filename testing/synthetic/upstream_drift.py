"""Claim drift (issue 13, 1): the RCT was fixed, but the Pods still hold claims generated from the old one.

The resource-claim controller generates a Pod's claim once, when the Pod is created, from the RCT as it
is then; nothing ever updates it. kubernetes/kubernetes#129362 (pohly): "There is no concept of
'ResourceClaimTemplate is in use'. It's used only for very brief moments in time when creating a
ResourceClaim for a pod." So deleting and re-applying an RCT (the fix of constraint-unsatisfiable)
changes nothing for a Pod that already has its claim: the scheduler keeps allocating the old spec
until the Pod is re-created. `scenarios.py` appends `scenarios()` to its list.
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.recipes import recipe_devices
from testing.synthetic.ids import ts
from testing.synthetic.knobs import Knobs
from testing.synthetic.scenario_kit import Scenario, edited_scenario

Objects = list[dict[str, Any]]
ALL_PENDING = {"prefill_running": 0, "decode_running": 0, "prefill_pending": 0, "decode_pending": 1}


def _rct_replaced(objects: Objects) -> Objects:
    """The user applied numa-unaligned.yaml (delete, then apply) after the Pending Pod got its claim."""
    for obj in objects:
        if obj["kind"] == "ResourceClaimTemplate":
            obj["metadata"]["creationTimestamp"] = ts(-600)
            obj["metadata"]["uid"] = obj["metadata"]["uid"][:-4] + "beef"
            obj["metadata"]["annotations"] = {}
            obj["spec"]["spec"] = {"devices": recipe_devices("numa-unaligned")}
    return objects


def scenarios() -> list[Scenario]:
    return [
        edited_scenario(
            "rct-fixed-claim-stale",
            (
                "One RDMA NIC per NUMA node; the numa-aligned RCT could not hold, so the user applied "
                "numa-unaligned.yaml. The Pending Pod still holds the claim generated from the old RCT "
                "(kubernetes/kubernetes#129362): only re-creating the Pod gives it a claim of the new RCT."
            ),
            lambda objects, _builder: _rct_replaced(objects),
            must={"claim-stale"},
            must_not={"constraint-unsatisfiable", "claim-not-allocated", "simulation-disagrees"},
            knobs=Knobs(nics_per_numa=1, **ALL_PENDING),
        )
    ]
