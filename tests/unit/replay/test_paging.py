"""The replay server pages a list from where the last page ended: every item once, in order, whatever
the page size, namespace or selector; its continue tokens are opaque and only its own are accepted."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote

import pytest

from kubectl_rbln.replay.server import ReplayServer
from kubectl_rbln.replay.store import ContinueError, ContinueExpired, ObjectStore
from kubectl_rbln.selectors import match_labels, parse_label_selector


def pod(namespace: str, name: str, tier: str, rv: int = 1) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"tier": tier},
            "resourceVersion": str(rv),
        },
        "spec": {"containers": [{"name": "c", "image": "x"}]},
        "status": {"phase": "Running"},
    }


def cluster(rv: int = 1) -> list[dict[str, Any]]:
    """Namespaces that are prefixes of each other ("a", "a-b", "ab"): the range of one must not
    spill into the next."""
    pods = []
    for ns in ("a", "a-b", "ab", "zz"):
        for i in range(23):
            pods.append(pod(ns, f"p{i:03d}", "front" if i % 3 == 0 else "back"))
    pods[0]["metadata"]["resourceVersion"] = str(rv)
    return pods


def walk(store: ObjectStore, namespace: str | None, selector: str, limit: int) -> list[tuple[str, str]]:
    resource = store.resource("", "v1", "pods")
    assert resource is not None
    labels = parse_label_selector(selector)
    seen: list[tuple[str, str]] = []
    token = ""
    while True:
        page = store.list(resource, namespace, labels, [], limit, token)
        seen += [(s.namespace, s.name) for s in page.items]
        if not page.continue_token:
            return seen
        assert page.items, "a page with a continue token holds items"
        if selector:
            assert page.remaining is None  # as the API server: no count under a selector
        else:
            assert page.remaining == len(everything(namespace, selector)) - len(seen)
        token = page.continue_token


def everything(namespace: str | None, selector: str) -> list[tuple[str, str]]:
    labels = parse_label_selector(selector)
    return sorted(
        (p["metadata"]["namespace"], p["metadata"]["name"])
        for p in cluster()
        if (namespace is None or p["metadata"]["namespace"] == namespace)
        and (not labels or match_labels(labels, p))
    )


@pytest.mark.parametrize("namespace", [None, "a", "a-b", "ab", "zz", "missing"])
@pytest.mark.parametrize("selector", ["", "tier=front", "tier=none"])
@pytest.mark.parametrize("limit", [0, 1, 7, 23, 500])
def test_paging_returns_every_item_once_in_order(namespace: str | None, selector: str, limit: int) -> None:
    store = ObjectStore(cluster())
    assert walk(store, namespace, selector, limit) == everything(namespace, selector)


def _token(server: ReplayServer, path: str) -> str:
    with urllib.request.urlopen(f"{server.url}{path}", timeout=10) as reply:
        return str(json.loads(reply.read())["metadata"]["continue"])


def _status(server: ReplayServer, path: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(f"{server.url}{path}", timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _forged(token: str, **change: Any) -> str:
    data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    data.update(change)
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


@pytest.mark.slow  # servers on loopback ports
def test_forged_tokens_are_400_and_tokens_from_before_a_reload_are_410() -> None:
    with ReplayServer(cluster(rv=5)) as old, ReplayServer(cluster(rv=9)) as new:
        token = _token(new, "/api/v1/namespaces/a/pods?limit=5")
        code, doc = _status(new, f"/api/v1/namespaces/a/pods?limit=5&continue={quote(token)}")
        assert code == 200 and len(doc["items"]) == 5

        for forged, why in [
            (_forged(token, start=["a", "p020"]), "not issued by this server"),  # skip ahead
            (_forged(token, mac="0" * 32), "not issued by this server"),
            (_forged(token, rv="99"), "another resource version"),
        ]:
            code, doc = _status(new, f"/api/v1/namespaces/a/pods?limit=5&continue={quote(forged)}")
            assert (code, doc["reason"]) == (400, "BadRequest") and why in doc["message"], doc
        # a token is good for the list that issued it only
        code, doc = _status(new, f"/api/v1/namespaces/zz/pods?limit=5&continue={quote(token)}")
        assert (code, doc["reason"]) == (400, "BadRequest")

        stale = _token(old, "/api/v1/namespaces/a/pods?limit=5")
        code, doc = _status(new, f"/api/v1/namespaces/a/pods?limit=5&continue={quote(stale)}")
        assert (code, doc["reason"]) == (410, "Expired")
        assert "too old to display a consistent list result" in doc["message"]


def test_a_stale_token_is_expired_and_a_newer_one_is_refused() -> None:
    old, new = ObjectStore(cluster(rv=5)), ObjectStore(cluster(rv=9))
    resource = new.resource("", "v1", "pods")
    assert resource is not None
    stale = old.list(resource, None, [], [], 3, "").continue_token
    future = new.list(resource, None, [], [], 3, "").continue_token
    with pytest.raises(ContinueExpired):
        new.list(resource, None, [], [], 3, stale)
    with pytest.raises(ContinueError) as refused:
        old.list(resource, None, [], [], 3, future)
    assert not isinstance(refused.value, ContinueExpired)
