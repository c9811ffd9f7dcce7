"""Binding conditions end to end: `kubectl rbln why -f <bundle>` on each upstream_binding scenario (and the
gate-off cluster with --feature-gates), in English and Korean (the CLI as a subprocess; slow lane)."""

from __future__ import annotations

import json

import pytest

from testing.synthetic.builder import dumps_bundle
from testing.synthetic.scenarios import SCENARIOS
from testing.synthetic.upstream_binding import ATTACH_FAILED, ATTACHED, fabric_cluster

CASES = {
    "fabric-npu-binding-pending": ("binding-conditions-pending", 1, [ATTACHED, "rbln0", "600"]),
    "fabric-npu-attach-failed": ("binding-failed", 1, [ATTACH_FAILED, "AttachFailed"]),
    "fabric-npu-binding-timeout": ("binding-failed", 1, [ATTACHED, "600"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_why_file_names_device_and_condition(name, rbln, tmp_path):
    scenario = SCENARIOS[name]
    slug, code, names = CASES[name]
    bundle = tmp_path / f"{name}.json"
    bundle.write_text(dumps_bundle(scenario.build("v1")), encoding="utf-8")
    namespace, pod = scenario.pending_pod
    run = rbln("why", "-f", str(bundle), "-n", namespace, pod, "-o", "json")
    assert run.returncode == code, run.stderr
    findings = json.loads(run.stdout)["pods"][0]["findings"]
    assert findings[0]["slug"] == slug, [f["slug"] for f in findings]
    assert not scenario.must_not & {f["slug"] for f in findings}
    for lang in ("en", "ko"):
        text = rbln("why", "-f", str(bundle), "-n", namespace, pod, "--lang", lang)
        for word in names:
            assert word in text.stdout, f"{lang}: {word!r} not in\n{text.stdout}"


def test_why_gate_off_names_the_devices(rbln, tmp_path):
    objects, (namespace, pod) = fabric_cluster()
    bundle = tmp_path / "gate-off.json"
    bundle.write_text(dumps_bundle(objects), encoding="utf-8")
    flag = ("--feature-gates", "DRADeviceBindingConditions=false")
    run = rbln("why", "-f", str(bundle), "-n", namespace, pod, *flag, "-o", "json")
    assert run.returncode == 1, run.stderr
    findings = json.loads(run.stdout)["pods"][0]["findings"]
    assert findings[0]["slug"] == "binding-gate-disabled"
    assert "rbln0" in findings[0]["title"] and ATTACHED in findings[0]["detail"]
