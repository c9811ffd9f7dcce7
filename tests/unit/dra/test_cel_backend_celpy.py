"""The pure-Python backend answers DRA selectors as the main (Rust) backend does, on real slices.

Skipped when cel-python is not installed; the comparison part also needs the Rust library.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("celpy")

from celpy import celtypes  # noqa: E402

from kubectl_rbln.cluster.files import load_objects  # noqa: E402
from kubectl_rbln.dra.cel import CelError, compile_selector_with, get_backend  # noqa: E402
from kubectl_rbln.dra.cel_backend_celpy import from_cel, to_cel  # noqa: E402
from kubectl_rbln.dra.normalize_slices import normalize_slice  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"
HAS_RUST = importlib.util.find_spec("cel") is not None

DEVICES = [
    d
    for name in (
        "SYNTHETIC-rbln-npu-slice.yaml",
        "dranet-slice-gke-doc-basic.yaml",
        "gpu-slice-aws-a100.yaml",
    )
    for obj in load_objects([str(SAMPLES / name)])
    if obj.get("kind") == "ResourceSlice"
    for d in normalize_slice(obj).devices
]


def sample_selectors() -> list[str]:
    """Every CEL expression in the sample RCTs and DeviceClasses, plus a few the chart documents."""
    out: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("cel"), dict) and isinstance(node["cel"].get("expression"), str):
                out.append(node["cel"]["expression"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(load_objects([str(SAMPLES / "rcts-and-deviceclasses.yaml")]))
    return [
        *dict.fromkeys(out),
        'device.attributes["npu.rebellions.ai"].productName == "RBLN-CA25"',
        'device.capacity["npu.rebellions.ai"].memory.compareTo(quantity("32Gi")) >= 0',
        'device.attributes["resource.kubernetes.io"].numaNode == 0',  # no such key on some devices
        '"numaNode" in device.attributes["dra.net"] && device.attributes["dra.net"].numaNode == 1',
        'device.attributes["dra.net"].mtu > 1500',
    ]


SELECTORS = sample_selectors()


def outcome(backend, expression, device):
    try:
        return compile_selector_with(get_backend(backend), expression).matches(device)
    except CelError as err:
        return (err.kind, err.message)


def test_samples_hold_devices_and_selectors():
    # the dranet doc sample is cut before `driver:`; its attribute names are fully qualified anyway
    assert {"rbln0", "gpu7rdma0"} <= {d.name for d in DEVICES}
    assert len(SELECTORS) >= 8


def test_celpy_alone_on_known_devices():
    nic = next(d for d in DEVICES if d.name == "gpu7rdma0")
    assert outcome(
        "celpy",
        'device.attributes["dra.net"]["rdma"] == true && device.attributes["dra.net"]["numaNode"] == 1',
        nic,
    )
    assert outcome("celpy", 'device.attributes["dra.net"].mtu > 9000', nic) is False
    npu = next(d for d in DEVICES if d.name == "rbln0")
    assert outcome("celpy", 'device.attributes["npu.rebellions.ai"].nope', npu) == (
        "runtime",
        "no such key: nope",
    )


@pytest.mark.skipif(not HAS_RUST, reason="the Rust cel library is not installed")
@pytest.mark.parametrize("expression", SELECTORS)
def test_same_answer_as_the_main_backend_on_every_sample_device(expression):
    got = [outcome("celpy", expression, d) for d in DEVICES]
    want = [outcome("rust", expression, d) for d in DEVICES]
    assert got == want


def test_values_convert_both_ways():
    plain = {"a": [1, True, "x", 1.5, b"z"], "b": {"c": False}}
    converted = to_cel(plain)
    assert isinstance(converted, celtypes.MapType)
    assert isinstance(converted[celtypes.StringType("a")][1], celtypes.BoolType)  # bool is not int here
    back = from_cel(converted)
    assert back == plain
    assert type(back["a"][1]) is bool and type(back["a"][0]) is int
