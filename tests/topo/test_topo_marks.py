"""The drawing marks what keeps a device from the Pod though it sits in the node: a taint the request
does not tolerate, and a device the driver left out of this node's slice (issue 21, 4)."""

from __future__ import annotations

import json

from testing.synthetic import ClusterBuilder, Knobs, build_cluster, write_bundle

NPU_DRIVER = "npu.rebellions.ai"


def _npu_slice(objects, node):
    return next(
        o
        for o in objects
        if o["kind"] == "ResourceSlice"
        and o["spec"]["driver"] == NPU_DRIVER
        and o["spec"].get("nodeName") == node
    )


def test_a_device_left_out_of_one_nodes_slice_and_a_tainted_one_are_drawn(rbln, tmp_path):
    objects = build_cluster(0)
    lost = _npu_slice(objects, "npu-node-02")["spec"]["devices"]
    gone = lost.pop()["name"]  # the driver no longer publishes this NPU on npu-node-02
    tainted = _npu_slice(objects, "npu-node-02")["spec"]["devices"][0]
    tainted["taints"] = [{"key": "npu.rebellions.ai/unhealthy", "value": "ecc", "effect": "NoSchedule"}]
    bundle = tmp_path / "marks.json"
    write_bundle(str(bundle), objects)
    run = rbln("topo", "-f", str(bundle), "npu-node-02", "--k8s-version", "1.36")
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stdout.splitlines() if f" {gone} " in x)
    assert "not published here" in line
    assert "tainted npu.rebellions.ai/unhealthy=ecc:NoSchedule" in run.stdout
    korean = rbln("topo", "-f", str(bundle), "npu-node-02", "--k8s-version", "1.36", "--lang", "ko").stdout
    assert "이 노드에 게시되지 않음" in korean
    # the node whose slice is whole shows no device as missing
    whole = rbln("topo", "-f", str(bundle), "npu-node-01", "--k8s-version", "1.36").stdout
    assert "not published here" not in whole


def test_why_names_the_device_a_driver_left_out_of_the_only_node_that_could_hold_the_pod(tmp_path, rbln):
    """Both NPU nodes publish 8 NPUs; npu-node-02's driver lost four, and npu-node-01 is full: the
    insufficient-devices finding says which devices npu-node-02 no longer publishes."""
    builder = ClusterBuilder(7, "v1", Knobs(prefill_running=1, decode_running=1, decode_pending=1))
    objects = builder.build()
    devices = _npu_slice(objects, "npu-node-02")["spec"]["devices"]
    lost = [d["name"] for d in devices[4:]]
    del devices[1:]
    bundle = tmp_path / "lost.json"
    write_bundle(str(bundle), objects)
    namespace, pod = builder.target_pod()
    run = rbln("why", "-f", str(bundle), "-n", namespace, pod, "-o", "json")
    (diagnosis,) = json.loads(run.stdout)["pods"]
    found = {f["slug"]: f for f in diagnosis["findings"]}
    assert diagnosis["stage"] == "allocated" and run.returncode == 1
    missing = found["insufficient-devices"]["evidence"]["notPublishedOn"]["npu-node-02"]
    assert {f"{NPU_DRIVER}/{name}" for name in lost} <= set(missing)
