"""Discovery documents shaped as kubectl reads them, built from a real bundle."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.discovery import (
    api_group_list,
    api_resource_list,
    api_versions,
    not_found,
    status,
    version_info,
)
from kubectl_rbln.replay.resources import build_groups

BUNDLE = Path(__file__).resolve().parents[2] / "data" / "replay-basic.json"


@pytest.fixture(scope="module")
def groups():
    return build_groups(load_objects([str(BUNDLE)]))


def by_name(doc):
    return {r["name"]: r for r in doc["resources"]}


def test_core_resource_list_is_what_kubectl_get_and_exec_need(groups):
    doc = api_resource_list(groups[""], "v1")
    assert (doc["kind"], doc["apiVersion"], doc["groupVersion"]) == ("APIResourceList", "v1", "v1")
    res = by_name(doc)
    assert res["pods"] == {
        "name": "pods",
        "singularName": "pod",
        "namespaced": True,
        "kind": "Pod",
        "verbs": ["get", "list"],
        "shortNames": ["po"],
    }
    assert res["nodes"]["namespaced"] is False and res["nodes"]["shortNames"] == ["no"]
    # `kubectl exec` and `kubectl logs` look for these subresources
    assert res["pods/exec"]["verbs"] == ["create", "get"] and res["pods/exec"]["kind"] == "PodExecOptions"
    assert res["pods/log"]["verbs"] == ["get"]
    names = [r["name"] for r in doc["resources"]]
    assert names.index("pods/exec") == names.index("pods") + 1  # subresources follow their resource
    assert {"namespaces", "events"} <= set(res)  # served even when the bundle holds none


def test_no_resource_allows_a_write(groups):
    for group in groups.values():
        for version in group.versions:
            for r in api_resource_list(group, version)["resources"]:
                assert not {"create", "update", "patch", "delete", "deletecollection", "watch"} & set(
                    r["verbs"]
                ) or (r["name"] == "pods/exec")


def test_dra_group_lists_every_dra_resource(groups):
    doc = api_resource_list(groups["resource.k8s.io"], "v1")
    assert doc["groupVersion"] == "resource.k8s.io/v1"
    res = by_name(doc)
    assert {"deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates"} <= set(res)
    assert res["resourceclaims"]["namespaced"] and not res["resourceslices"]["namespaced"]
    assert "pods/exec" not in res


def test_group_list_prefers_the_newest_version(groups):
    doc = api_group_list(groups)
    assert doc["kind"] == "APIGroupList"
    names = [g["name"] for g in doc["groups"]]
    assert names == sorted(names) and "" not in names
    dra = next(g for g in doc["groups"] if g["name"] == "resource.k8s.io")
    assert dra["preferredVersion"] == dra["versions"][0]
    assert dra["preferredVersion"]["groupVersion"] == f"resource.k8s.io/{dra['preferredVersion']['version']}"


def test_cluster_info_versions_are_discovered_without_dra_objects():
    info = {
        "apiVersion": "kubectl-rbln/v1",
        "kind": "ClusterInfo",
        "metadata": {},
        "resourceVersions": ["v1beta1", "v1"],
    }
    groups = build_groups([info])
    doc = api_group_list(groups)
    # beside it only the groups every cluster serves (what owns Pods, the schedulers' Leases), in v1
    assert [g["name"] for g in doc["groups"]] == ["apps", "batch", "coordination.k8s.io", "resource.k8s.io"]
    dra = doc["groups"][-1]
    assert [v["version"] for v in dra["versions"]] == ["v1", "v1beta1"]
    assert {r["name"] for r in api_resource_list(groups["resource.k8s.io"], "v1beta1")["resources"]} == {
        "deviceclasses",
        "resourceclaims",
        "resourceclaimtemplates",
        "resourceslices",
    }


def test_api_versions_and_version():
    assert api_versions("127.0.0.1:8001") == {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:8001"}],
    }
    v = version_info("v1.34.2")
    assert (v["major"], v["minor"], v["gitVersion"]) == ("1", "34", "v1.34.2")
    assert version_info("1.35.0-rc.1")[("minor")] == "35"
    assert version_info("garbage")["major"] == ""


def test_status_bodies_kubectl_prints(groups):
    claims = groups["resource.k8s.io"].resources["resourceclaims"]
    body = not_found(claims, "decode-0-accel")
    assert body["message"] == 'resourceclaims.resource.k8s.io "decode-0-accel" not found'
    assert body["details"] == {"name": "decode-0-accel", "kind": "resourceclaims", "group": "resource.k8s.io"}
    assert (body["kind"], body["status"], body["reason"], body["code"]) == (
        "Status",
        "Failure",
        "NotFound",
        404,
    )
    pods = groups[""].resources["pods"]
    assert not_found(pods, "x")["message"] == 'pods "x" not found'
    assert "group" not in not_found(pods, "x")["details"]
    assert status(405, "MethodNotAllowed", "read-only")["details"] == {}
