"""The drawing marks what keeps a device from the Pod though it sits in the node: a taint the request
does not tolerate, and a device the driver left out of this node's slice (issue 21, 4)."""

from __future__ import annotations

from testing.synthetic import build_cluster, write_bundle

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
