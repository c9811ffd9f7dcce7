"""The -f reader accepts what people already have and names the place of every problem."""

from __future__ import annotations

import json

import pytest

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.errors import InputError
from tests.conftest import SAMPLES


def test_reads_a_kubectl_list_and_single_objects(tmp_path):
    listing = {"apiVersion": "v1", "kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "a"}}]}
    (tmp_path / "list.json").write_text(json.dumps(listing))
    (tmp_path / "pod.yaml").write_text(
        "kind: Pod\nmetadata:\n  name: b\n---\nkind: Node\nmetadata:\n  name: n\n"
    )
    objects = load_objects([str(tmp_path)])
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [
        ("Pod", "a"),
        ("Pod", "b"),
        ("Node", "n"),
    ]


def test_typed_list_from_get_raw_gets_item_kinds(tmp_path):
    raw = {
        "kind": "ResourceSliceList",
        "apiVersion": "resource.k8s.io/v1",
        "items": [{"metadata": {"name": "s"}}],
    }
    (tmp_path / "raw.json").write_text(json.dumps(raw))
    [item] = load_objects([str(tmp_path / "raw.json")])
    assert item["kind"] == "ResourceSlice" and item["apiVersion"] == "resource.k8s.io/v1"


def test_real_samples_all_load():
    kinds = sorted({o["kind"] for o in load_objects([str(SAMPLES)])})
    assert {"ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass"} <= set(kinds)


def test_truncated_json_names_file_and_position(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{"kind": "List", "items": [{"kind": "Pod"')
    with pytest.raises(InputError, match=r"cut\.json: invalid JSON at line 1, column \d+"):
        load_objects([str(path)])


def test_malformed_yaml_names_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("kind: Pod\nmetadata:\n  name: [unclosed\n")
    with pytest.raises(InputError, match=r"bad\.yaml: invalid YAML at line \d+"):
        load_objects([str(path)])


def test_yaml_bomb_is_refused(tmp_path):
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for level in range(1, 9):
        prev = f"*a{level - 1}"
        lines.append(f"a{level}: &a{level} [{', '.join([prev] * 9)}]")
    lines.append("kind: Pod")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="alias bomb"):
        load_objects([str(path)])


def test_object_without_kind_is_an_input_error(tmp_path):
    path = tmp_path / "nokind.json"
    path.write_text('{"metadata": {"name": "x"}}')
    with pytest.raises(InputError, match="without `kind`"):
        load_objects([str(path)])


def test_missing_file_and_empty_folder(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_objects([str(tmp_path / "nope.json")])
    with pytest.raises(InputError, match="holds no .json"):
        load_objects([str(tmp_path)])
