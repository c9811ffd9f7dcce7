"""Named failure scenarios: a synthetic cluster, the Pod to ask about, and what a diagnosis must say.

Why: every check is tested against the same stories a user meets, in every API shape. `must`
are the slugs a correct diagnosis reports for the primary cause; `must_not` are slugs that
would blame the wrong thing. Slugs outside both sets are allowed (a superset check).

Run `python -m testing.synthetic.scenarios` to regenerate the example bundles.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TypedDict

from kubectl_rbln.domain import NIC_CLASS, NIC_DRIVER
from testing.synthetic import (
    upstream_after_scheduling,
    upstream_binding,
    upstream_capacity,
    upstream_claim_state,
    upstream_counters,
    upstream_direct_claim,
    upstream_disagreement,
    upstream_drift,
    upstream_extended,
    upstream_families,
    upstream_stages_before,
    upstream_stages_node,
    upstream_taints,
)
from testing.synthetic.builder import ClusterBuilder, Knobs, dumps_bundle
from testing.synthetic.scenario_kit import DEVICE_BLAME, SLUGS, Scenario
from testing.synthetic.scenario_kit import seeded_scenario as _scenario


class _PodCounts(TypedDict):
    """Knobs that set how many Pods of each role run or wait."""

    prefill_running: int
    decode_running: int
    prefill_pending: int
    decode_pending: int


_ALL_PENDING: _PodCounts = {
    "prefill_running": 0,
    "decode_running": 0,
    "prefill_pending": 1,
    "decode_pending": 1,
}
_WRONG_LAYER = {"not-device-related", "claim-template-missing", "claim-not-created", "device-class-missing"}
_SCENARIOS = [
    _scenario(
        "healthy",
        "Reference cluster, one prefill and two decode Pods Running with NUMA-aligned NPUs and NICs; "
        "`why` on a Running decode Pod has nothing to fix.",
        must=set(),
        must_not=SLUGS,
        prefill_running=1,
        decode_running=2,
        decode_pending=0,
    ),
    _scenario(
        "deviceclass-missing",
        "The dranet DeviceClass was never created (dranet ships none); every Pod is rejected in PreFilter "
        "with `request nic: device class dranet does not exist`.",
        must={"device-class-missing"},
        must_not={
            "driver-slices-missing",
            "attribute-not-advertised",
            "not-device-related",
            "claim-template-missing",
        },
        drop_device_classes=(NIC_CLASS,),
        **_ALL_PENDING,
    ),
    _scenario(
        "slices-missing",
        "dranet is not running: no dra.net ResourceSlice on any node; "
        "`cannot allocate all claims` on both NPU nodes.",
        must={"driver-slices-missing"},
        must_not={
            "device-class-missing",
            "attribute-not-advertised",
            "not-device-related",
            "devices-exhausted",
        },
        drop_slices=(NIC_DRIVER,),
        **_ALL_PENDING,
    ),
    _scenario(
        "slices-empty",
        "dranet publishes a ResourceSlice per node but with zero devices (it found no NICs).",
        must={"driver-slices-missing"},
        must_not={
            "device-class-missing",
            "attribute-not-advertised",
            "not-device-related",
            "devices-exhausted",
        },
        empty_slices=(NIC_DRIVER,),
        **_ALL_PENDING,
    ),
    _scenario(
        "rct-missing",
        "The ResourceClaimTemplate npu-rdma was never applied: the claim controller reports "
        "FailedResourceClaimCreation and the Pods have no resourceClaimStatuses (never scheduled).",
        must={"claim-template-missing"},
        must_not={
            "device-class-missing",
            "driver-slices-missing",
            "not-device-related",
            "attribute-not-advertised",
        },
        rct=None,
        **_ALL_PENDING,
    ),
    _scenario(
        "claim-not-created",
        "The RCT exists but no ResourceClaim was generated and the Pods have no resourceClaimStatuses "
        "(claim controller not running); the scheduler holds the Pods in PreEnqueue, no event.",
        must={"claim-not-created"},
        must_not={
            "claim-template-missing",
            "device-class-missing",
            "driver-slices-missing",
            "not-device-related",
        },
        claim_created=False,
        **_ALL_PENDING,
    ),
    _scenario(
        "nic-no-numanode",
        "dranet v1.4.0 publishes NUMA only as dra.net/numaNode, not resource.kubernetes.io/numaNode, so "
        "the numa-aligned matchAttribute can never hold; `cannot allocate all claims` says nothing more.",
        must={"attribute-not-advertised"},
        must_not={"driver-slices-missing", "device-class-missing", "not-device-related", "devices-exhausted"},
        nic_numa_standard=False,
        **_ALL_PENDING,
    ),
    _scenario(
        "nic-no-pcieroot",
        "The NICs publish no resource.kubernetes.io/pcieRoot (VM guest / old dranet), so the "
        "distinctAttribute over the NICs rejects every NIC.",
        must={"attribute-not-advertised"},
        must_not={"driver-slices-missing", "device-class-missing", "not-device-related", "devices-exhausted"},
        nic_pcie_root=False,
        **_ALL_PENDING,
    ),
    _scenario(
        "npu-no-numanode",
        "The RBLN driver publishes no resource.kubernetes.io/numaNode (rbln-smi reports -1), so no NPU "
        "can take part in the NUMA matchAttribute.",
        must={"attribute-not-advertised"},
        must_not={"driver-slices-missing", "device-class-missing", "not-device-related", "devices-exhausted"},
        npu_numa=False,
        **_ALL_PENDING,
    ),
    _scenario(
        "nic-vendor-mismatch",
        "The backend NICs are Mellanox ConnectX-7 (pciSubsystem 0101), so the RCT's "
        '`pciSubsystem == "9140"` term (Broadcom) matches no NIC.',
        must={"selector-matches-nothing"},
        must_not={
            "attribute-not-advertised",
            "driver-slices-missing",
            "device-class-missing",
            "not-device-related",
        },
        nic_vendor="mellanox",
        **_ALL_PENDING,
    ),
    _scenario(
        "rdma-driver-not-loaded",
        "bnxt_re is not loaded, so dranet reports every NIC with dra.net/rdma false and no rdmaDevice; "
        "the `rdma == true` selector matches nothing.",
        must={"selector-matches-nothing"},
        must_not={
            "attribute-not-advertised",
            "driver-slices-missing",
            "device-class-missing",
            "not-device-related",
        },
        nic_rdma=False,
        **_ALL_PENDING,
    ),
    _scenario(
        "one-nic-per-numa",
        "Each NUMA node has one RDMA NIC; a node has two, but not two on one NUMA node, so the "
        "NUMA matchAttribute over 4 NPUs + 2 NICs cannot hold.",
        must={"constraint-unsatisfiable"},
        must_not={
            "attribute-not-advertised",
            "selector-matches-nothing",
            "driver-slices-missing",
            "not-device-related",
        },
        nics_per_numa=1,
        **_ALL_PENDING,
    ),
    _scenario(
        "nics-share-pcieroot",
        "The two NICs of each NUMA node are the two ports of one dual-port card (one pcieRoot), so "
        "distinctAttribute resource.kubernetes.io/pcieRoot over the NICs cannot hold.",
        must={"constraint-unsatisfiable"},
        must_not={
            "attribute-not-advertised",
            "selector-matches-nothing",
            "driver-slices-missing",
            "not-device-related",
        },
        nics_share_pcie_root=True,
        **_ALL_PENDING,
    ),
    _scenario(
        "devices-exhausted",
        "Two prefill and two decode Pods hold all four NUMA slots of the two NPU nodes; a third decode "
        "replica has nowhere to go.",
        must={"devices-exhausted"},
        must_not={
            "attribute-not-advertised",
            "selector-matches-nothing",
            "constraint-unsatisfiable",
            "driver-slices-missing",
            "not-device-related",
        },
        prefill_running=2,
        decode_running=2,
        decode_pending=1,
    ),
    _scenario(
        "distinct-dropped-gate-off",
        "DRAConsumableCapacity is off on the API server: the stored npu-rdma RCT lacks the "
        "distinctAttribute constraint that its last-applied-configuration has. The Pods run, but each "
        "got both ports of one dual-port NIC (one pcieRoot). `why` on a Running decode Pod.",
        must={"feature-gate-disabled"},
        must_not={"not-device-related", "driver-slices-missing", "claim-template-missing"},
        shape_matters=True,
        distinct_dropped=True,
        nics_share_pcie_root=True,
        prefill_running=1,
        decode_running=1,
        decode_pending=0,
    ),
    _scenario(
        "cel-no-such-key",
        'The RCT pins NPUs with `device.attributes["dra.net"].numaNode == 0`, but the v0.1.x RBLN driver '
        "does not mirror NUMA under dra.net: CEL runtime error `no such key: numaNode`, a SchedulerError.",
        must={"selector-error"},
        must_not={"not-device-related", "driver-slices-missing", "device-class-missing", "devices-exhausted"},
        npu_selector_dranet_numa=0,
        npu_numa_mirror=False,
        **_ALL_PENDING,
    ),
    _scenario(
        "rds-label-missing",
        "The prefill Pod (LMCache on RDS) selects rebellions.ai/rds.present=true, but no node has the label; "
        "decode Pods, which need no RDS, run.",
        must={"rds-label-missing"},
        must_not=DEVICE_BLAME,
        node_rds_label=False,
        prefill_running=0,
        decode_running=1,
        prefill_pending=1,
        decode_pending=0,
    ),
    _scenario(
        "memlock-crash",
        "Devices are allocated and the decode Pod runs, but modelserver crash-loops: it cannot raise "
        "the memlock limit (containerd LimitMEMLOCK not set) with RDMA enabled.",
        must={"memlock-limit"},
        must_not=DEVICE_BLAME | {"claim-not-allocated"},
        memlock_crash=True,
        prefill_running=1,
        decode_running=1,
        decode_pending=0,
    ),
    _scenario(
        "device-plugin-mode",
        "The cluster runs the NPU and RDMA device plugins (rebellions.ai/ATOM, rdma/hca), no DRA objects; "
        "the chart is in devicePlugin mode and four Pods hold every ATOM, so a fifth reports Insufficient.",
        must={"device-plugin-mode"},
        must_not=_WRONG_LAYER | {"driver-slices-missing", "attribute-not-advertised", "claim-not-allocated"},
        pod_mode="device-plugin",
        dra_npu=False,
        drop_device_classes=(NIC_CLASS,),
        drop_slices=(NIC_DRIVER,),
        rct=None,
        prefill_running=2,
        decode_running=2,
        decode_pending=1,
    ),
    _scenario(
        "taint-not-device-related",
        "Every NPU node carries a NoSchedule taint the Pods do not tolerate; devices are fine.",
        must={"not-device-related"},
        must_not=DEVICE_BLAME,
        device_node_taint=("dedicated", "batch", "NoSchedule"),
        **_ALL_PENDING,
    ),
    _scenario(
        "npu-pcieroot-bdf-format",
        "A user RCT pairs one NPU with one NIC on the same PCIe root complex (matchAttribute "
        "resource.kubernetes.io/pcieRoot). The v0.1.x RBLN driver publishes pcieRoot as a root-port BDF "
        "(0000:18:02.0), dranet as pci0000:18, so the values never match.",
        must={"constraint-unsatisfiable"},
        must_not={"not-device-related", "driver-slices-missing", "device-class-missing"},
        rct="pcie-paired",
        npu_pcie_root_format="bdf",
        npu_numa_mirror=False,
        nic_roots_shared_with_npus=True,
        **_ALL_PENDING,
    ),
]
_SCENARIOS += upstream_disagreement.UPSTREAM_DISAGREEMENT

_SCENARIOS += upstream_families.scenarios()  # issue 12, point 4 (testing/synthetic/upstream_families.py)
_SCENARIOS += upstream_taints.scenarios()  # device taints (testing/synthetic/upstream_taints.py)
_SCENARIOS += upstream_after_scheduling.SCENARIOS  # after scheduling: NRI, kubelet plugin, CDI
_SCENARIOS += upstream_claim_state.scenarios()  # issue 12, point 4: the claim's own state
_SCENARIOS += upstream_binding.scenarios()  # binding conditions (testing/synthetic/upstream_binding.py)
_SCENARIOS += upstream_counters.scenarios()  # shared counters (testing/synthetic/upstream_counters.py)
_SCENARIOS += upstream_capacity.scenarios()  # consumable capacity (testing/synthetic/upstream_capacity.py)
_SCENARIOS += upstream_extended.UPSTREAM_EXTENDED  # DRA-backed extended resources, CEL errors per node
_SCENARIOS += upstream_drift.scenarios()  # claim drift: the RCT changed, the claims did not
_SCENARIOS += upstream_direct_claim.scenarios()  # issue 13: a Pod that names its ResourceClaim itself
_SCENARIOS += upstream_stages_before.SCENARIOS  # issue 21: stuck before the node, at every stage
_SCENARIOS += upstream_stages_node.SCENARIOS  # issue 21: stuck on the node, at every stage
SCENARIOS: dict[str, Scenario] = {s.name: s for s in _SCENARIOS}


def get(name: str) -> Scenario:
    try:
        return SCENARIOS[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}") from None


# --------------------------------------------------------------------------- example bundles

# The README's first command runs on pending-decode.json: dranet v1.4.0 (no resource.kubernetes.io/
# numaNode on NICs) under the numa-aligned RCT, the most common real cause. Every prefill and decode
# Pod is Pending: with that cause none could ever have been allocated. The newer RBLN driver mirrors
# NUMA as dra.net/numaNode, so matching on dra.net/numaNode is the fix the tool can suggest.
EXAMPLE_KNOBS: dict[str, Knobs] = {
    "pending-decode": Knobs(
        nic_numa_standard=False, prefill_running=0, decode_running=0, prefill_pending=1, decode_pending=2
    ),
    "healthy": SCENARIOS["healthy"].knobs,
}
EXAMPLE_SEED = 20260914


def example_text(name: str) -> str:
    """The exact bytes of examples/<name>.json."""
    return dumps_bundle(ClusterBuilder(EXAMPLE_SEED, "v1", EXAMPLE_KNOBS[name]).build())


def example_target(name: str) -> tuple[str, str]:
    return ClusterBuilder(EXAMPLE_SEED, "v1", EXAMPLE_KNOBS[name]).target_pod()


def write_examples(repo: Path) -> list[Path]:
    """Regenerate examples/*.json (and the packaged copy of pending-decode.json)."""
    written = []
    for name in EXAMPLE_KNOBS:
        text = example_text(name)
        targets = [repo / "examples" / f"{name}.json"]
        if name == "pending-decode":
            targets.append(repo / "kubectl_rbln" / "examples" / f"{name}.json")
        for path in targets:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def _main(argv: list[str]) -> int:
    repo = Path(argv[0]) if argv else Path(__file__).resolve().parents[2]
    for path in write_examples(repo):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
