"""Typed slices read by position (dra/typed_reads.py): `check`, `attrs` and `topo` answer from a slice's
type what the built devices would say, and leave the slices of a typed cluster unbuilt (issue 26: their
memory grows with the slice types, not the nodes). What they print is compared with types off in
tests/dra/test_node_types.py; here, what a read finds and what it leaves built."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_rbln.app.attrs import AttrsRequest, attrs
from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.app.topo import TopoRequest, topo
from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.cli.dump import as_list
from kubectl_rbln.cluster.source import read_inputs
from kubectl_rbln.domain import DEFAULT_RCT
from kubectl_rbln.dra import node_types
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.dra.node_types import TypedSlice
from kubectl_rbln.dra.typed_reads import attribute_types, device_locator, materialized, stands_in, value_at
from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.scenarios import SCENARIOS


def _write(tmp_path: Path, objects: list[dict], name: str = "cluster.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(as_list(objects)), encoding="utf-8")
    return str(path)


def _cluster(tmp_path: Path, **knobs: object) -> str:
    base = Knobs(npu_nodes=12, prefill_running=0, prefill_pending=0, decode_pending=1, captures=False)
    return _write(tmp_path, ClusterBuilder(5, "v1", base.replace(**{"decode_running": 6, **knobs})).build())


def _read(path: str, monkeypatch: pytest.MonkeyPatch) -> Snapshot:
    monkeypatch.setenv(node_types.ENV, "1")
    return read_inputs([path], "x")


def _built(snapshot: Snapshot) -> set[str]:
    return {s.name for s in snapshot.slices if isinstance(s, TypedSlice) and s.built}


SOURCES = ["generated", *sorted(SCENARIOS)]


@pytest.mark.parametrize("source", SOURCES)
def test_every_device_is_read_where_the_built_slices_have_it(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The locator finds each (driver, pool, device) in the slice and position an index over the built
    devices holds it (the last slice naming it), a value read by position is the built device's, and
    where the type's representative stands in for a device it holds the same values of those names."""
    path = _cluster(tmp_path) if source == "generated" else _write(tmp_path, SCENARIOS[source].build("v1"))
    snapshot = _read(path, monkeypatch)
    read_built = _built(snapshot)  # DeviceTaintRules are applied to every device while reading
    built = _read(path, monkeypatch).slices
    index = {d.key: d for s in built for d in s.devices}
    locator = device_locator(snapshot)
    assert _built(snapshot) == read_built  # the locator itself builds nothing
    for key, device in index.items():
        found = locator.find(key)
        assert found is not None, key
        slice_, position = found
        names = sorted(device.attributes)
        assert [value_at(slice_, position, n) for n in names] == [device.attributes[n] for n in names]
        types = attribute_types(slice_, position)
        if types is not None:
            assert types == tuple(map(type, device.attributes.values()))
        for read in ({n} for n in names):
            if stands_in(slice_, position, read):
                rep = slice_.kind.devices[position]  # type: ignore[attr-defined]
                assert rep.attributes[next(iter(read))] == device.attributes[next(iter(read))]
    assert locator.find(("no.such.driver", "pool", "device")) is None
    copies = [materialized(s) for s in snapshot.slices]
    assert _built(snapshot) == read_built  # built apart from the snapshot...
    assert copies == built  # ...and equal to what each slice says


def test_check_attrs_and_topo_leave_the_typed_slices_unbuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On twelve nodes of one kind, `attrs` and `topo` build no typed slice, and `check` builds only
    what the Pending Pod's own `why` builds (the nodes its allocator runs on)."""
    path = _cluster(tmp_path)
    snapshot = _read(path, monkeypatch)
    assert any(isinstance(s, TypedSlice) for s in snapshot.slices)
    attrs(snapshot, AttrsRequest("serving", DEFAULT_RCT))
    topo(snapshot, TopoRequest("serving"))
    assert not _built(snapshot)
    run_check(snapshot, CheckRequest("serving", DEFAULT_RCT))
    alone = _read(path, monkeypatch)
    pending = next(p for p in alone.pods if p.phase == "Pending")
    why(alone, WhyRequest((pending.name,), "serving"))
    assert _built(snapshot) == _built(alone)
    assert len(_built(snapshot)) < len(snapshot.slices) // 4


def test_a_running_pods_device_whose_own_value_its_selector_reads_is_judged_by_that_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One node's NICs lose RDMA (`dra.net/rdma` false, what the NIC request selects on): the value
    varies in the NICs' type, so each device is judged by its own value; the running Pod on that node
    is stuck at `devices` with those NICs no longer selected, every other running Pod passes."""
    path = Path(_cluster(tmp_path))
    bundle = json.loads(path.read_text(encoding="utf-8"))
    pods = [o for o in bundle["items"] if o["kind"] == "Pod" and o["status"].get("phase") == "Running"]
    node = pods[0]["spec"]["nodeName"]
    for item in bundle["items"]:
        spec = item.get("spec") or {}
        if (
            item["kind"] == "ResourceSlice"
            and spec.get("driver") == "dra.net"
            and spec.get("nodeName") == node
        ):
            for device in spec["devices"]:
                device["attributes"]["dra.net/rdma"] = {"bool": False}
    path.write_text(json.dumps(bundle), encoding="utf-8")
    snapshot = _read(str(path), monkeypatch)
    types = snapshot.derived[node_types.DERIVED_KEY].types.values()
    assert any("dra.net/rdma" in t.varying for t in types)
    report = run_check(snapshot, CheckRequest("serving", DEFAULT_RCT))
    stuck = {
        item.diagnosis.pod.name: item.diagnosis.stuck
        for item in report.items
        if item.diagnosis is not None and item.diagnosis.pod.phase == "Running"
    }
    drifted = {name for name, state in stuck.items() if state is not None and state.stage == "devices"}
    assert drifted == {p["metadata"]["name"] for p in pods if p["spec"]["nodeName"] == node}
    facts = next(s for s in stuck.values() if s is not None).facts
    assert facts["devicesNoLongerSelected"] and all("/" + node in d for d in facts["devicesNoLongerSelected"])
