"""The replay server authorizes as kube-apiserver does: each case below is a line of upstream code.

Verbs: staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (NewRequestInfo). The `create`
check of a websocket exec from 1.35: pkg/registry/core/pod/rest/subresources.go (ExecREST.Connect) and
authorize.go (ensureAuthorizedForVerb), gate AuthorizePodWebsocketUpgradeCreatePermission in
pkg/features/kube_features.go. Rule matching: plugin/pkg/auth/authorizer/rbac/rbac.go (RuleAllows).
"""

from __future__ import annotations

import pytest

from kubectl_rbln.replay.rbac import Attributes, Rbac, checks, emulated_minor, request_attributes

EXEC = "/api/v1/namespaces/serving/pods/p/exec"
SA = "system:serviceaccount:ops:rbln"


@pytest.mark.parametrize(
    ("method", "path", "query", "verb", "resource", "namespace", "name"),
    [
        ("GET", EXEC, "command=ls&stdout=true", "get", "pods/exec", "serving", "p"),  # websocket upgrade
        ("POST", EXEC, "command=ls", "create", "pods/exec", "serving", "p"),  # SPDY
        ("GET", "/api/v1/pods", "limit=500", "list", "pods", "", ""),
        ("GET", "/api/v1/namespaces/serving/pods", "watch=true", "watch", "pods", "serving", ""),
        ("GET", "/api/v1/namespaces/serving/pods", "watch=false", "list", "pods", "serving", ""),
        ("GET", "/api/v1/watch/namespaces/serving/pods", "", "watch", "pods", "serving", ""),
        ("GET", "/api/v1/namespaces/serving", "", "get", "namespaces", "serving", "serving"),
        ("GET", "/api/v1/namespaces/serving/pods/p/log", "previous=true", "get", "pods/log", "serving", "p"),
        (
            "GET",
            "/apis/resource.k8s.io/v1/resourceslices",
            "",
            "list",
            "resource.k8s.io/resourceslices",
            "",
            "",
        ),
        ("HEAD", "/api/v1/nodes/n1", "", "get", "nodes", "", "n1"),
        ("DELETE", "/api/v1/namespaces/serving/pods", "", "deletecollection", "pods", "serving", ""),
        ("PATCH", "/api/v1/nodes/n1/status", "", "patch", "nodes/status", "", "n1"),
    ],
)
def test_verbs_and_resources_as_the_request_info_filter_reads_them(
    method: str, path: str, query: str, verb: str, resource: str, namespace: str, name: str
) -> None:
    attrs = request_attributes(method, path, query)
    group_resource = f"{attrs.group}/{attrs.combined_resource}" if attrs.group else attrs.combined_resource
    assert attrs.resource_request
    assert (attrs.verb, group_resource, attrs.namespace, attrs.name) == (verb, resource, namespace, name)


@pytest.mark.parametrize("path", ["/api", "/api/v1", "/apis", "/apis/resource.k8s.io/v1", "/version"])
def test_discovery_is_not_a_resource_request(path: str) -> None:
    attrs = request_attributes("GET", path)
    assert not attrs.resource_request and attrs.verb == "get"


@pytest.mark.parametrize(
    ("minor", "verbs"), [(32, ["get"]), (34, ["get"]), (35, ["get", "create"]), (37, ["get", "create"])]
)
def test_a_websocket_exec_also_needs_create_from_1_35(minor: int, verbs: list[str]) -> None:
    assert [a.verb for a in checks(request_attributes("GET", EXEC), minor)] == verbs
    assert [a.verb for a in checks(request_attributes("POST", EXEC), minor)] == ["create"]  # already create
    log = request_attributes("GET", "/api/v1/namespaces/serving/pods/p/log")
    assert [a.verb for a in checks(log, minor)] == ["get"]  # only exec, attach and portforward
    assert [a.verb for a in checks(request_attributes("GET", EXEC), minor, create_check=False)] == ["get"]


def test_emulated_minor_reads_vendor_versions() -> None:
    assert [emulated_minor(v) for v in ("v1.34.2", "v1.35.0-gke.1200", "1.33", "")] == [34, 35, 33, 0]


def roles(*rules: dict, namespaced: bool = False) -> list[dict]:
    kind = "Role" if namespaced else "ClusterRole"
    meta = {"name": "r", **({"namespace": "serving"} if namespaced else {})}
    binding = {
        "kind": "RoleBinding" if namespaced else "ClusterRoleBinding",
        "metadata": {"name": "b", **({"namespace": "serving"} if namespaced else {})},
        "roleRef": {"kind": kind, "name": "r"},
        "subjects": [{"kind": "ServiceAccount", "name": "rbln", "namespace": "ops"}],
    }
    return [{"kind": kind, "metadata": meta, "rules": list(rules)}, binding]


def test_websocket_exec_refusals_name_the_verb_that_is_missing() -> None:
    create_only = Rbac(roles({"apiGroups": [""], "resources": ["pods/exec"], "verbs": ["create"]}))
    assert create_only.refusal("GET", EXEC, "", "v1.34.0", SA) == (
        f'pods "p" is forbidden: User "{SA}" cannot get resource "pods/exec" in API group "" '
        'in the namespace "serving"'
    )
    get_only = Rbac(roles({"apiGroups": [""], "resources": ["pods/exec"], "verbs": ["get"]}))
    assert get_only.refusal("GET", EXEC, "", "v1.34.0", SA) == ""
    assert (
        get_only.refusal("GET", EXEC, "", "v1.35.0", SA) == 'pods "p" is forbidden: '
    )  # RBAC's empty reason
    both = Rbac(
        roles({"apiGroups": [""], "resources": ["pods/exec"], "verbs": ["get", "create"]}, namespaced=True)
    )
    assert both.refusal("GET", EXEC, "", "v1.37.0", SA) == ""
    other_ns = EXEC.replace("serving", "default")
    assert "cannot get resource" in both.refusal(
        "GET", other_ns, "", "v1.37.0", SA
    )  # a Role stays in its namespace
    assert "cannot get resource" in both.refusal(
        "GET", EXEC, "", "v1.37.0", "system:serviceaccount:ops:other"
    )


def test_rules_match_wildcards_subresources_and_names() -> None:
    rbac = Rbac(
        roles(
            {"apiGroups": ["*"], "resources": ["*/log"], "verbs": ["get"]},
            {"apiGroups": [""], "resources": ["nodes"], "resourceNames": ["n1"], "verbs": ["*"]},
        )
    )
    assert rbac.allows(Attributes("get", "", True, "", "pods", "log", "serving", "p"), SA)
    assert not rbac.allows(Attributes("get", "", True, "", "pods", "exec", "serving", "p"), SA)
    assert rbac.allows(Attributes("get", "", True, "", "nodes", "", "", "n1"), SA)
    assert not rbac.allows(
        Attributes("list", "", True, "", "nodes", "", "", ""), SA
    )  # resourceNames: no list
    assert (
        rbac.refusal("GET", "/apis", "", "v1.34.0", SA) == ""
    )  # system:discovery, bound to system:authenticated
    assert rbac.refusal("GET", "/version", "", "v1.34.0", SA) == ""
    assert (
        rbac.refusal("GET", "/metrics", "", "v1.34.0", SA)
        == f'forbidden: User "{SA}" cannot get path "/metrics"'
    )
