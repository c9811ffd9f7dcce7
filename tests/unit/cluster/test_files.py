"""-f edge cases not covered in tests/foundation/test_files.py: stdin, folder walking, odd documents."""

from __future__ import annotations

import io
import json
import sys

import pytest

from kubectl_rbln.cluster.files import expand_paths, load_objects, parse_documents
from kubectl_rbln.errors import InputError


def pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ml"}}


def test_dash_reads_stdin_and_names_it(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(pod("from-stdin"))))
    assert [o["metadata"]["name"] for o in load_objects(["-"])] == ["from-stdin"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("kind: Pod\nmetadata: {name: [x\n"))
    with pytest.raises(InputError, match=r"^<stdin>: invalid YAML at line 3"):
        load_objects(["-"])


def test_folders_are_walked_recursively_sorted_and_filtered(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.YAML").write_text(json.dumps(pod("nested")))
    (tmp_path / "a.json").write_text(json.dumps(pod("a")))
    (tmp_path / "notes.txt").write_text("not a bundle")
    (tmp_path / "c.yml").write_text("kind: Node\nmetadata: {name: n}\n")
    paths = expand_paths([str(tmp_path)])
    assert [p.removeprefix(str(tmp_path)) for p in paths] == ["/a.json", "/b/z.YAML", "/c.yml"]
    assert [o["metadata"]["name"] for o in load_objects([str(tmp_path)])] == ["a", "nested", "n"]


def test_several_inputs_keep_the_order_given(tmp_path):
    for name in ("one", "two"):
        (tmp_path / f"{name}.json").write_text(json.dumps(pod(name)))
    names = [
        o["metadata"]["name"] for o in load_objects([str(tmp_path / "two.json"), str(tmp_path / "one.json")])
    ]
    assert names == ["two", "one"]


def test_yaml_flow_mapping_is_not_mistaken_for_broken_json(tmp_path):
    path = tmp_path / "flow.yaml"
    path.write_text("{kind: Pod, metadata: {name: flow}}\n")
    assert load_objects([str(path)])[0]["metadata"]["name"] == "flow"


def test_json_document_inside_a_yaml_stream_and_empty_documents():
    docs = parse_documents("---\n---\nkind: Pod\nmetadata: {name: a}\n---\n", "x.yaml")
    assert docs == [{"kind": "Pod", "metadata": {"name": "a"}}]
    assert parse_documents("   \n", "empty.json") == []


def test_list_of_objects_at_the_top_level(tmp_path):
    path = tmp_path / "array.json"
    path.write_text(json.dumps([pod("a"), {"kind": "List", "items": [pod("b")]}]))
    assert [o["metadata"]["name"] for o in load_objects([str(path)])] == ["a", "b"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("42\n", "expected Kubernetes objects, found a int"),
        ('{"kind": "List", "items": ["oops"]}', "a List item is a str, not an object"),
        ("[" * 100_000 + "]" * 100_000, "nests too deeply"),
    ],
    ids=["scalar", "list-item", "deep"],
)
def test_documents_that_are_not_objects(tmp_path, text, message):
    path = tmp_path / "odd.json"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_objects([str(path)])


def test_non_utf8_file_names_the_byte(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"kind: Pod\nmetadata: {name: caf\xe9}\n")
    with pytest.raises(InputError, match=r"latin1\.yaml: not UTF-8 text \(byte 30\)"):
        load_objects([str(path)])


def test_typed_list_items_keep_their_own_kind(tmp_path):
    path = tmp_path / "events.json"
    path.write_text(
        json.dumps({"kind": "EventList", "apiVersion": "v1", "items": [{"kind": "Other", "metadata": {}}]})
    )
    assert load_objects([str(path)])[0]["kind"] == "Other"
