"""suggest-rct's edited-selector recipe (issue 13): a selector term reads an attribute no NIC publishes.

NICs without `dra.net/pciSubsystem` (an older dranet): the recipe's `pciSubsystem == "9140"` term fails
on every NIC. Instead of refusing, suggest-rct pins the NIC by what the RDMA NICs do publish (pciVendor
and pciDevice, and rdma), proves it with the same simulation as every other candidate, and labels it
a change of intent for the operator to confirm.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from kubectl_rbln.app.suggest_rct import SuggestRequest, suggest_rct
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic import ClusterBuilder, Knobs

PENDING = {"prefill_running": 0, "decode_running": 0, "prefill_pending": 1, "decode_pending": 1}
NS = ("-n", "serving")
BROADCOM = "Broadcom Inc. and subsidiaries"
BCM57508 = "BCM57508 NetXtreme-E 10Gb/25Gb/40Gb/50Gb/100Gb/200Gb Ethernet"


def without(attribute: str, **knobs: Any) -> list[dict[str, Any]]:
    """The synthetic cluster, its dra.net devices stripped of `attribute`."""
    objects = copy.deepcopy(ClusterBuilder(11, "v1", Knobs(**{**PENDING, **knobs})).build())
    for obj in objects:
        if obj.get("kind") == "ResourceSlice" and obj["spec"]["driver"] == "dra.net":
            for device in obj["spec"]["devices"]:
                device.get("basic", device)["attributes"].pop(attribute, None)
    return objects


def write(tmp_path: Path, objects: list[dict[str, Any]]) -> Path:
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}), encoding="utf-8")
    return path


def nic_selector(template: dict[str, Any]) -> str:
    nic = next(r for r in template["spec"]["spec"]["devices"]["requests"] if r["name"] == "nic")
    return nic["exactly"]["selectors"][0]["cel"]["expression"]


def test_nics_without_pcisubsystem_get_a_selector_on_vendor_and_device(rbln, tmp_path: Path) -> None:
    bundle = write(tmp_path, without("dra.net/pciSubsystem"))
    code, out, err = rbln("suggest-rct", "-f", str(bundle), *NS)
    assert code == 0, err
    template = yaml.safe_load(out)
    selector = nic_selector(template)
    assert "pciSubsystem" not in selector
    assert selector == (
        'device.attributes["dra.net"].rdma == true'
        f' && device.attributes["dra.net"].pciVendor == "{BROADCOM}"'
        f' && device.attributes["dra.net"].pciDevice == "{BCM57508}"'
    )
    assert err.startswith("suggest-rct: numa-aligned for serving/npu-rdma")
    flat = " ".join(err.split())  # the explanation wraps at 100 columns
    assert "\n  change of intent: " in err
    assert "change of intent: confirm that the NICs to use are those with dra.net/rdma=true, " in flat
    assert f'dra.net/pciVendor="{BROADCOM}"' in flat
    assert "dra.net/pciSubsystem, which no dra.net device publishes" in flat
    assert "verified: the simulation of `why --with-rct` fits" in flat
    # the proof is the same as every candidate's: `why --with-rct` on the printed RCT fits the Pod
    rct = tmp_path / "rct.yaml"
    rct.write_text(out, encoding="utf-8")
    pod = next(
        o["metadata"]["name"]
        for o in json.loads(bundle.read_text())["items"]
        if o.get("kind") == "Pod" and "-decode-" in o["metadata"]["name"]
    )
    _, why_out, _ = rbln("why", "-f", str(bundle), *NS, pod, "--with-rct", str(rct), "-o", "json")
    assert any(n["fits"] is True for n in json.loads(why_out)["pods"][0]["nodes"])


def test_the_change_of_intent_is_said_in_korean(rbln, tmp_path: Path) -> None:
    bundle = write(tmp_path, without("dra.net/pciSubsystem"))
    code, _, err = rbln("suggest-rct", "-f", str(bundle), *NS, "--lang", "ko")
    assert code == 0
    assert "  의도 변경: 사용할 NIC이 dra.net/rdma=true" in err
    assert "확인하세요" in err


def test_the_document_marks_the_change_of_intent() -> None:
    snapshot = build_snapshot(without("dra.net/pciSubsystem"))
    report = suggest_rct(snapshot, SuggestRequest("serving", "npu-rdma"))
    document = report.to_document("en")
    chosen = report.result.chosen
    assert chosen is not None and chosen.candidate.intent is not None
    assert chosen.candidate.intent.unpublished == ("dra.net/pciSubsystem",)
    last = document["attempts"][-1]
    assert last["changeOfIntent"] == {
        "unpublished": ["dra.net/pciSubsystem"],
        "selectedBy": {"dra.net/pciVendor": BROADCOM, "dra.net/pciDevice": BCM57508},
        "nics": 8,
    }
    assert all(a["changeOfIntent"] is None for a in document["attempts"][:-1])


def test_a_published_pcisubsystem_is_no_change_of_intent() -> None:
    """The vendor mismatch keeps its own adaptation (the RDMA NICs' pciSubsystem): no intent change."""
    snapshot = build_snapshot(ClusterBuilder(11, "v1", Knobs(**PENDING, nic_vendor="mellanox")).build())
    report = suggest_rct(snapshot, SuggestRequest("serving", "npu-rdma"))
    assert report.result.chosen is not None
    assert all(a.candidate.intent is None for a in report.result.attempts)


def test_rdma_false_is_still_no_fix(rbln, tmp_path: Path) -> None:
    """rdma is published (false): no attribute is missing, the RDMA driver is; nothing to propose."""
    bundle = write(tmp_path, ClusterBuilder(11, "v1", Knobs(**PENDING, nic_rdma=False)).build())
    code, out, err = rbln("suggest-rct", "-f", str(bundle), *NS)
    assert code == 1 and out == ""
    assert "change of intent" not in err


def test_a_vendor_name_with_quotes_and_controls_is_quoted_in_cel_and_cleaned_on_screen(
    rbln, tmp_path: Path
) -> None:
    objects = without("dra.net/pciSubsystem")
    odd = 'Acme "RoCE"\\x \x1b[31mred'
    for obj in objects:
        if obj.get("kind") == "ResourceSlice" and obj["spec"]["driver"] == "dra.net":
            for device in obj["spec"]["devices"]:
                device.get("basic", device)["attributes"]["dra.net/pciVendor"] = {"string": odd}
    code, out, err = rbln("suggest-rct", "-f", str(write(tmp_path, objects)), *NS)
    assert code == 0, err
    assert json.dumps(odd) in nic_selector(yaml.safe_load(out))  # proven by the simulation: it matched
    assert "\x1b" not in err and "change of intent: confirm" in " ".join(err.split())
