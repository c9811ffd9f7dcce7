"""The replay handler's pure helpers: query booleans, `kubectl logs --tail/--limit-bytes`, the default
container, and list bodies spliced from pre-encoded items."""

from __future__ import annotations

import json

import pytest

from kubectl_rbln.replay.http import (
    BadRequest,
    _default_container,
    _list_body,
    _parse_bool,
    _parse_query,
    _trim_log,
)
from kubectl_rbln.replay.store import Stored, encode

LOG = "line 1\nline 2\nline 3\n"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", False),
        ("previous", True),
        ("previous=", True),
        ("previous=true", True),
        ("previous=1", True),
        ("previous=false", False),
        ("previous=0", False),
        ("previous=FALSE", False),
        ("previous=true&previous=false", False),
    ],  # the last value wins
)
def test_query_booleans_as_the_apiserver_reads_them(query, expected):
    assert _parse_bool(_parse_query(query), "previous") is expected


def test_malformed_query_is_a_bad_request():
    with pytest.raises(BadRequest, match="malformed query"):
        _parse_query("&".join(f"k{i}=v" for i in range(1001)))


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("tailLines=2", "line 2\nline 3\n"),
        ("tailLines=0", ""),
        ("tailLines=10", LOG),
        ("tailLines=-1", LOG),  # kubectl's default --tail=-1: everything
        ("limitBytes=9", "line 1\nli"),
        ("tailLines=1&limitBytes=4", "line"),  # tail first, then the byte limit
    ],
)
def test_log_tail_and_limit(query, shown):
    assert _trim_log(LOG, _parse_query(query)) == shown


def test_limit_bytes_never_splits_a_character():
    assert _trim_log("한국", _parse_query("limitBytes=4")) == "한"


@pytest.mark.parametrize("query", ["tailLines=x", "limitBytes=0", "limitBytes=-5", "limitBytes=1k"])
def test_invalid_log_options_are_bad_requests(query):
    with pytest.raises(BadRequest):
        _trim_log(LOG, _parse_query(query))


def pod(containers, annotation=None):
    meta = {"name": "decode-0", "namespace": "serving"}
    if annotation:
        meta["annotations"] = {"kubectl.kubernetes.io/default-container": annotation}
    obj = {"kind": "Pod", "metadata": meta, "spec": {"containers": [{"name": c} for c in containers]}}
    return Stored("serving", "decode-0", obj, encode(obj))


def test_default_container_as_kubelet_picks_it():
    assert _default_container(pod(["modelserver"]), ["modelserver"]) == "modelserver"
    assert _default_container(pod(["modelserver", "metrics"]), ["modelserver", "metrics"]) == ""
    two = pod(["modelserver", "metrics"], annotation="metrics")
    assert _default_container(two, ["modelserver", "metrics"]) == "metrics"
    wrong = pod(["modelserver", "metrics"], annotation="sidecar")  # names no container: ignored
    assert _default_container(wrong, ["modelserver", "metrics"]) == ""
    assert _default_container(None, ["only"]) == "only"  # a log without its Pod
    assert _default_container(None, ["a", "b"]) == ""


def test_list_body_is_the_list_document_with_items_in_order():
    items = [pod(["a"]), pod(["b"])]
    body = _list_body("PodList", "v1", {"resourceVersion": "42", "continue": ""}, items)
    doc = json.loads(body)
    assert doc == {
        "kind": "PodList",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": "42", "continue": ""},
        "items": [items[0].obj, items[1].obj],
    }
    assert json.loads(_list_body("PodList", "v1", {}, []))["items"] == []
