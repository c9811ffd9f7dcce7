"""`attrs --rct NAME` names an RCT: a missing one is an error, not the reference recipe (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path

from attrs_bundles import BY_NAME

from testing.synthetic import ClusterBuilder, Knobs

NS = ("-n", "serving")
USAGE_EXIT = 2


def test_a_named_rct_that_does_not_exist_is_an_error_naming_those_that_do(rbln, tmp_path: Path) -> None:
    bundle = BY_NAME["all-present"].write(tmp_path)
    code, out, err = rbln("attrs", "-f", str(bundle), *NS, "--rct", "nope")
    assert code == USAGE_EXIT
    assert out == ""
    assert err == (
        'error: resourceclaimtemplate "nope" not found in namespace "serving"; the namespace has: npu-rdma\n'
    )


def test_a_named_rct_in_a_namespace_without_any(rbln, tmp_path: Path) -> None:
    path = tmp_path / "no-rct.json"
    items = ClusterBuilder(3, "v1", Knobs(rct=None)).build()
    path.write_text(json.dumps({"kind": "List", "apiVersion": "v1", "items": items}))
    code, out, err = rbln("attrs", "-f", str(path), *NS, "--rct", "npu-rdma")
    assert code == USAGE_EXIT and out == ""
    assert err == (
        'error: resourceclaimtemplate "npu-rdma" not found in namespace "serving"; '
        "the namespace has no ResourceClaimTemplate (omit --rct to compare with the reference recipe)\n"
    )


def test_without_rct_and_none_in_the_cluster_the_recipe_stays(rbln, tmp_path: Path) -> None:
    path = tmp_path / "no-rct.json"
    items = ClusterBuilder(3, "v1", Knobs(rct=None)).build()
    path.write_text(json.dumps({"kind": "List", "apiVersion": "v1", "items": items}))
    code, table, _ = rbln("attrs", "-f", str(path), *NS)
    assert code == 0 and "(the reference recipe)" in table and "before installing" in table


def test_a_named_rct_that_exists_is_read(rbln, tmp_path: Path) -> None:
    bundle = BY_NAME["all-present"].write(tmp_path)
    code, out, _ = rbln("attrs", "-f", str(bundle), *NS, "--rct", "npu-rdma", "-o", "json")
    assert code == 0
    assert json.loads(out)["rct"]["origin"] == "cluster"
