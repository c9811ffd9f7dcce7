"""The wire-shape reader (issue 16) builds the very Snapshot the plain json path builds.

Every scenario bundle, in every resource.k8s.io version, is read both ways and compared object by
object; malformed objects (a wrong type where the checks look) still end in the same `malformed`
problems, and files that are not one JSON List still end in the same one-line errors.
"""

from __future__ import annotations

import copy
import json

import pytest

from kubectl_rbln.cluster.files import iter_objects
from kubectl_rbln.cluster.source import read_inputs
from kubectl_rbln.cluster.wire_read import iter_checked
from kubectl_rbln.dra.normalize import NORMALIZERS, SnapshotBuilder
from kubectl_rbln.dra.wire import WIRE_SHAPES, page_shape
from kubectl_rbln.errors import InputError
from testing.bundle_layouts import compared_fields
from testing.synthetic.bundle import dumps_bundle
from testing.synthetic.scenarios import SCENARIOS

FIELDS = compared_fields()


def plain(path: str):
    builder = SnapshotBuilder("x")
    for obj in iter_objects([path]):
        builder.add(obj)
    return builder.finish()


def fast(path: str):
    snapshot = read_inputs([path], "x")
    snapshot.source = "x"
    return snapshot


def assert_same(path: str) -> None:
    one, two = plain(path), fast(path)
    for name in FIELDS:
        assert getattr(two, name) == getattr(one, name), name


@pytest.mark.parametrize("api_version", ["v1", "v1beta2", "v1beta1"])
def test_every_scenario_reads_the_same_both_ways(tmp_path, api_version):
    for name, scenario in SCENARIOS.items():
        path = tmp_path / f"{name}-{api_version}.json"
        path.write_text(dumps_bundle(scenario.build(api_version)), encoding="utf-8")
        assert_same(str(path))


def test_the_pod_devices_cases_read_the_same_both_ways(tmp_path):
    """Device health, networkData and recorded probe failures: fields only pod-devices reads."""
    from testing.pod_devices_cases import build_cases

    path = tmp_path / "pod-devices-cases.json"
    path.write_text(dumps_bundle(build_cases()[0]), encoding="utf-8")
    assert_same(str(path))


def test_the_wire_shape_is_used_for_pods_claims_slices_and_nodes(tmp_path):
    objects = next(iter(SCENARIOS.values())).build("v1")
    path = tmp_path / "b.json"
    path.write_text(dumps_bundle(objects), encoding="utf-8")
    checked = {obj["kind"] for obj, wire in iter_checked(str(path)) if wire}
    assert checked == {"Pod", "ResourceClaim", "ResourceSlice", "Node"}


def _mutations(objects):
    """(description, edit) pairs: each puts a wrong type where the checks look."""

    def first(kind):
        return next(o for o in objects if o["kind"] == kind)

    yield "pod claims an object", lambda: first("Pod")["spec"].__setitem__("resourceClaims", {"a": 1})
    yield "slice devices a string", lambda: first("ResourceSlice")["spec"].__setitem__("devices", "x")
    yield "slice device a number", lambda: first("ResourceSlice")["spec"]["devices"].__setitem__(0, 3)
    yield (
        "attribute int as text",
        lambda: first("ResourceSlice")["spec"]["devices"][0]["attributes"].__setitem__("numa", {"int": "1"}),
    )
    yield (
        "attribute two values",
        lambda: first("ResourceSlice")["spec"]["devices"][0]["attributes"].__setitem__(
            "two", {"int": 1, "string": "a"}
        ),
    )
    yield (
        "claim requests an object",
        lambda: first("ResourceClaim")["spec"]["devices"].__setitem__("requests", {}),
    )
    yield "pod metadata a list", lambda: first("Pod").__setitem__("metadata", [])
    yield "pod status null", lambda: first("Pod").__setitem__("status", None)
    yield "node taints an object", lambda: first("Node")["spec"].__setitem__("taints", {"key": "x"})
    yield "node allocatable a list", lambda: first("Node")["status"].__setitem__("allocatable", ["4"])
    yield "node spec a string", lambda: first("Node").__setitem__("spec", "x")
    yield (
        "pod condition message an object",
        lambda: first("Pod")["status"]["conditions"].__setitem__(
            0, {"type": "Ready", "status": "False", "message": {"a": 1}}
        ),
    )
    yield "pod labels a list", lambda: first("Pod")["metadata"].__setitem__("labels", ["a"])
    yield "node conditions an object", lambda: first("Node")["status"].__setitem__("conditions", {"a": 1})
    yield (
        "claim reserved for a string",
        lambda: first("ResourceClaim").setdefault("status", {}).__setitem__("reservedFor", ["x"]),
    )


def test_malformed_objects_report_the_same(tmp_path):
    base = next(iter(SCENARIOS.values())).build("v1")
    for index, (what, _) in enumerate(_mutations(base)):
        objects = copy.deepcopy(base)
        _apply(objects, what)
        path = tmp_path / f"m{index}.json"
        path.write_text(dumps_bundle(objects), encoding="utf-8")
        assert_same(str(path))
        problems = [p for p in fast(str(path)).problems if p.code == "malformed"]
        if what not in (
            "attribute int as text",
            "attribute two values",
            "pod status null",
            "pod condition message an object",
            "pod labels a list",
            "node conditions an object",
            "claim reserved for a string",
        ):
            assert problems, what


def _apply(objects, what):
    for name, edit in _mutations(objects):
        if name == what:
            edit()


@pytest.mark.parametrize(
    "text",
    [
        '{"kind": "List", "items": [1]}',
        '{"kind": "List", "items": [{"kind": "Pod"}, ',
        '{"kind": "List", "items": {}}',
        '{"metadata": {"name": "x"}}',
        '[{"kind": "Pod", "metadata": {"name": "a"}}]',
        '{"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "\u00e9"}}]}',
    ],
)
def test_errors_and_odd_shapes_match_the_plain_path(tmp_path, text):
    path = tmp_path / "odd.json"
    path.write_text(text, encoding="utf-8")
    try:
        expected = ("ok", [o for o in iter_objects([str(path)])])
    except InputError as exc:
        expected = ("error", exc.message)
    try:
        got = ("ok", [o for o, _ in iter_checked(str(path))])
    except InputError as exc:
        got = ("error", exc.message)
    assert got[0] == expected[0]
    if got[0] == "error":
        assert got[1] == expected[1]
    else:
        assert json.dumps(got[1], sort_keys=True) == json.dumps(expected[1], sort_keys=True)


def test_bad_utf8_is_named_as_before(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "\xff"}}]}')
    with pytest.raises(InputError) as plain_error:
        list(iter_objects([str(path)]))
    with pytest.raises(InputError) as fast_error:
        list(iter_checked(str(path)))
    assert fast_error.value.message == plain_error.value.message


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    """`-f` reads regular files only (issue 23): a FIFO (`-f <(kubectl get ...)`) is the one-line
    input error at once, even with no writer (opening it for reading would block); a stream goes to
    `-f -`."""
    import os

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"pipe\.json: not a regular file but a FIFO"):
        list(iter_checked(str(fifo)))


def _live_page_models(kind, objects):
    """What a live read normalizes from one list page: the wire-shape page, or the plain one when
    the page does not fit (cluster/live.py `_decode`)."""
    import msgspec

    body = json.dumps({"kind": f"{kind}List", "apiVersion": "v1", "items": objects}).encode()
    try:
        page = msgspec.json.Decoder(page_shape(kind)).decode(body)
    except msgspec.ValidationError:
        page = json.loads(body)
    return [NORMALIZERS[kind](item) for item in page["items"]]


def test_live_pages_normalize_the_same_as_plain_objects(tmp_path):
    """Claim specs and device capacities are normalized once per distinct text and shared (issue 16):
    a live page's claims and slices, well-formed or not, still normalize to what the plain dicts do."""
    base = next(iter(SCENARIOS.values())).build("v1")
    for what in [None] + [name for name, _ in _mutations(base)]:
        objects = copy.deepcopy(base)
        if what:
            _apply(objects, what)
        for kind in WIRE_SHAPES:
            of_kind = [o for o in objects if o["kind"] == kind]
            expected = [NORMALIZERS[kind](copy.deepcopy(o)) for o in of_kind]
            assert _live_page_models(kind, of_kind) == expected, (what, kind)


@pytest.mark.parametrize("api_version", ["v1", "v1beta2", "v1beta1"])
def test_live_pages_keep_the_same_as_plain_objects(api_version):
    """A live page's Pods carry their template parts as JSON text (issue 16): what the live read keeps
    of each (its normalized Pod and the crashing device containers whose previous log to read) is what
    the plain object gives, for every scenario (memlock-crash has a crashing device Pod)."""
    import msgspec

    from kubectl_rbln.cluster.source import _normalizer

    crashed = 0
    for scenario in SCENARIOS.values():
        objects = scenario.build(api_version)
        for kind in WIRE_SHAPES:
            of_kind = [o for o in objects if o["kind"] == kind]
            body = json.dumps({"kind": f"{kind}List", "apiVersion": "v1", "items": of_kind}).encode()
            page = msgspec.json.Decoder(page_shape(kind)).decode(body)
            expected = [_normalizer(kind)(copy.deepcopy(o)) for o in of_kind]
            assert [_normalizer(kind)(item) for item in page["items"]] == expected, (scenario, kind)
            crashed += sum(len(c) for _, _, c in expected)
    assert crashed


def test_normalizing_leaves_plain_objects_as_they_were():
    """Only a wire Pod keeps its checked parts on its spec; a plain object (a YAML file, a dump's own
    objects) is never changed, whatever few fields it has."""
    objects = [o for s in SCENARIOS.values() for o in s.build("v1") if o["kind"] in WIRE_SHAPES]
    objects += [{"kind": "Pod", "metadata": {"name": "bare"}, "spec": {"nodeName": "n1"}}]
    for obj in objects:
        before = copy.deepcopy(obj)
        NORMALIZERS[obj["kind"]](obj)
        assert obj == before


def _misleading_heads(objects):
    """Item texts whose first `"kind": "..."` is not the item's own kind (a nested one first, the key
    twice, an escaped name, no kind in a typed list): the kind read from an item's first bytes is a
    guess, and each must read as the plain path reads it."""
    node = next(o for o in objects if o["kind"] == "Node")
    pod = next(o for o in objects if o["kind"] == "Pod")
    claim = next(o for o in objects if o["kind"] == "ResourceClaim")
    some_slice = next(o for o in objects if o["kind"] == "ResourceSlice")

    def body(obj, *drop):
        return json.dumps({k: v for k, v in obj.items() if k not in drop})[1:-1]

    owner = '{"metadata": {"ownerReferences": [{"kind": "Node", "name": "n"}]}, '
    yield "nested kind first", "{" + '"spec": {"kind": "Pod"}, ' + body(some_slice) + "}"
    yield "owner kind first", owner[:-2] + ", " + body(pod, "metadata") + "}"
    yield "kind twice", '{"kind": "Node", ' + body(claim) + "}"
    yield "kind twice, last a Node", "{" + body(pod) + ', "kind": "Node"}'
    yield "escaped kind", '{"kind": "Po\\u0064", ' + body(pod, "kind") + "}"
    yield "kind not a text", '{"kind": ["Pod"], ' + body(node, "kind") + "}"
    yield "no kind in a typed list", owner[:-2] + ", " + body(node, "kind", "metadata") + "}"


def test_an_item_whose_first_bytes_name_another_kind_reads_as_before(tmp_path):
    base = next(iter(SCENARIOS.values())).build("v1")
    for index, (what, text) in enumerate(_misleading_heads(base)):
        for list_kind in ("List", "NodeList"):
            path = tmp_path / f"h{index}-{list_kind}.json"
            path.write_text(f'{{"kind": "{list_kind}", "apiVersion": "v1", "items": [{text}]}}')
            expected = [o for o in iter_objects([str(path)])]
            got = [o for o, _ in iter_checked(str(path))]
            assert [o.get("kind") for o in got] == [o.get("kind") for o in expected], what
            assert_same(str(path))


def _one_a_line(objects) -> str:
    import io

    from testing.synthetic.bundle import write_bundle_stream

    out = io.StringIO()
    write_bundle_stream(out, objects)
    return out.getvalue()


@pytest.mark.parametrize("api_version", ["v1", "v1beta2", "v1beta1"])
def test_one_item_a_line_reads_the_same_as_the_plain_path(tmp_path, api_version):
    """A bundle with one item a line (bench/gen) is cut by line and decoded where it lies (issue 26):
    every scenario reads to the Snapshot the plain path builds, and the items are cut by line."""
    from kubectl_rbln.cluster import wire_lines

    for name, scenario in SCENARIOS.items():
        path = tmp_path / f"{name}-{api_version}.json"
        path.write_text(_one_a_line(scenario.build(api_version)), encoding="utf-8")
        assert wire_lines.layout_of(path.read_bytes()) is not None
        assert_same(str(path))


def test_one_item_a_line_malformed_objects_report_the_same(tmp_path):
    base = next(iter(SCENARIOS.values())).build("v1")
    for index, (what, _) in enumerate(_mutations(base)):
        objects = copy.deepcopy(base)
        _apply(objects, what)
        path = tmp_path / f"m{index}.json"
        path.write_text(_one_a_line(objects), encoding="utf-8")
        assert_same(str(path))


def _odd_lines(objects):
    """(description, file text) of one-item-a-line files whose lines are not all one whole item, or
    whose items the whole file's reading treats in its own way: each must read as it reads whole."""
    text = _one_a_line(objects)
    head, *items, tail = text.split("\n", 1)[0:1] + text.split("\n")[1:-2] + ["]}\n"]
    items = [i.rstrip(",") for i in items]

    def join(lines):
        return head + "\n" + ",\n".join(lines) + "\n" + tail

    pretty = json.dumps(json.loads(items[3]), indent=2)
    yield "a pretty-printed item", join(items[:3] + [pretty] + items[4:])
    yield "two items on a line", join(items[:2] + [items[2] + ", " + items[3]] + items[4:])
    yield "a blank line", join(items[:2] + [""] + items[2:]).replace(",\n,\n", ",\n\n")
    yield "a trailing comma", join(items).replace("\n]}", ",\n]}")
    yield "no comma", join(items).replace(items[2] + ",\n", items[2] + "\n")
    yield "a number item", join(items[:2] + ["7"] + items[2:])
    yield "a number item, then bad JSON", join(items[:2] + ["7"] + items[2:5] + ["{"] + items[5:])
    yield (
        "NaN in an item",
        join(items[:2] + ['{"kind": "Namespace", "metadata": {"name": "n"}, "x": NaN}'] + items[2:]),
    )
    yield "bad JSON late", join(items[:-2] + ['{"kind": "Pod",'] + items[-1:])
    yield "nested too deep", join(items[:2] + ["[" * 100000 + "]" * 100000] + items[2:])
    yield "a typed list", join(items).replace('"kind":"List"', '"kind":"PodList"', 1)
    yield "an empty list", head + "\n]}\n"
    yield "whitespace and CRLF", join([i + "  " for i in items]).replace("\n", "\r\n")
    yield "items twice", join(items).replace('"items":[', '"items":[],"items":[', 1)


@pytest.mark.parametrize("what", [w for w, _ in _odd_lines(next(iter(SCENARIOS.values())).build("v1"))])
def test_one_item_a_line_odd_files_read_as_they_read_whole(tmp_path, what):
    base = next(iter(SCENARIOS.values())).build("v1")
    text = dict(_odd_lines(base))[what]
    path = tmp_path / "odd.json"
    path.write_text(text, encoding="utf-8")
    from kubectl_rbln.cluster import wire_lines

    assert wire_lines.layout_of(text.encode("utf-8")) is not None  # read by line, up to the odd line
    try:
        expected = ("ok", [o.get("kind") for o in iter_objects([str(path)])])
    except InputError as exc:
        expected = ("error", exc.message)
    try:
        got = ("ok", [o.get("kind") for o, _ in iter_checked(str(path))])
        if not got[1]:
            fast(str(path))  # an empty list: the read's error
    except InputError as exc:
        got = ("error", exc.message)
    assert got == expected
    if got[0] == "ok":
        assert_same(str(path))


def test_one_item_a_line_bad_utf8_late_is_named_as_before(tmp_path):
    base = next(iter(SCENARIOS.values())).build("v1")
    text = _one_a_line(base).encode("utf-8")
    cut = text.rindex(b'"name":"') + len(b'"name":"')
    path = tmp_path / "bad.json"
    path.write_bytes(text[:cut] + b"\xff" + text[cut:])
    with pytest.raises(InputError) as plain_error:
        list(iter_objects([str(path)]))
    with pytest.raises(InputError) as fast_error:
        list(iter_checked(str(path)))
    assert fast_error.value.message == plain_error.value.message
