"""RBAC as kube-apiserver applies it, so the replay server can refuse what a real cluster refuses.

A test hands the server the Roles, ClusterRoles and their bindings (`Faults(rbac=Rbac(objects))`) and
every request is authorized the way the API server does, for the minor the server emulates (the
bundle's ClusterInfo serverVersion):

- the request's verb and resource come from its method and URL as
  staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (NewRequestInfo) derives them:
  GET/HEAD is `get` (`list` or `watch` without a name), POST `create`, PUT `update`, PATCH `patch`,
  DELETE `delete` (`deletecollection` without a name); so a websocket exec, a GET upgrade, is
  `get pods/exec`, and only SPDY's POST is `create pods/exec`;
- from 1.35 the pod registry also requires `create` on pods/exec, pods/attach and pods/portforward
  whatever the method (pkg/registry/core/pod/rest/subresources.go, ExecREST.Connect ->
  ensureAuthorizedForVerb in pkg/registry/core/pod/rest/authorize.go, behind the feature gate
  AuthorizePodWebsocketUpgradeCreatePermission, beta and on by default from 1.35 in
  pkg/features/kube_features.go; kubernetes/kubernetes issue 133515, pull request 134577);
- a rule matches as plugin/pkg/auth/authorizer/rbac/rbac.go (RuleAllows) and
  pkg/apis/rbac/v1/evaluation_helpers.go say (`*`, `*/subresource`, resourceNames, nonResourceURLs
  with a trailing `*`), and the rules that apply are the ClusterRoleBindings' everywhere and the
  namespace's RoleBindings' in it (pkg/registry/rbac/validation/rule.go, VisitRulesFor);
- every authenticated user also holds the bootstrap discovery roles (system:discovery,
  system:public-info-viewer, system:basic-user, bound to system:authenticated in
  plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go), so discovery and /version pass.

The denial texts are the API server's: the authorization filter's
(staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go, forbiddenMessage) and,
for the second check, NewForbidden with RBAC's empty reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote

API_PREFIXES = ("api", "apis")
GROUPLESS_PREFIXES = ("api",)
SPECIAL_VERBS = ("proxy", "watch")  # /api/v1/watch/pods: the verb from the path (deprecated form)
NAMESPACE_SUBRESOURCES = ("status", "finalize")
METHOD_VERBS = {
    "POST": "create",
    "GET": "get",
    "HEAD": "get",
    "PUT": "update",
    "PATCH": "patch",
    "DELETE": "delete",
}
# The connectible subresources that also need `create` (subresources.go: AttachREST, ExecREST,
# PortForwardREST call ensureAuthorizedForVerb(ctx, r.Authorizer, "create") first).
CREATE_CHECKED = ("exec", "attach", "portforward")
CREATE_CHECK_SINCE = 35  # AuthorizePodWebsocketUpgradeCreatePermission: {1.35, Default: true, Beta}
AUTHENTICATED = "system:authenticated"
BOOTSTRAP_RULES: tuple[dict[str, Any], ...] = (  # bootstrappolicy/policy.go, bound to system:authenticated
    {  # system:discovery
        "verbs": ["get"],
        "nonResourceURLs": [
            "/healthz",
            "/version",
            "/version/",
            "/openapi",
            "/openapi/*",
            "/api",
            "/api/*",
            "/apis",
            "/apis/*",
        ],
    },
    {"verbs": ["get"], "nonResourceURLs": ["/livez", "/readyz", "/healthz", "/version", "/version/"]},
    {  # system:basic-user: `kubectl auth can-i`
        "verbs": ["create"],
        "apiGroups": ["authorization.k8s.io"],
        "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
    },
)


@dataclass(frozen=True)
class Attributes:
    """What the authorizer is asked about one request (authorizer.Attributes)."""

    verb: str
    path: str
    resource_request: bool = False
    group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""

    @property
    def combined_resource(self) -> str:
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource

    def with_verb(self, verb: str) -> Attributes:
        return Attributes(
            verb, self.path, self.resource_request, self.group, self.resource, self.subresource,
            self.namespace, self.name,
        )  # fmt: skip


def request_attributes(method: str, path: str, query: str = "") -> Attributes:
    """The verb, group, resource, namespace and name kube-apiserver reads from a request
    (requestinfo.go NewRequestInfo, step by step)."""
    verb = method.lower()
    parts = [unquote(p) for p in path.strip("/").split("/") if p]
    if len(parts) < 3 or parts[0] not in API_PREFIXES:
        return Attributes(verb, path)
    prefix, rest = parts[0], parts[1:]
    group = ""
    if prefix not in GROUPLESS_PREFIXES:
        if len(rest) < 3:
            return Attributes(verb, path)
        group, rest = rest[0], rest[1:]
    rest = rest[1:]  # the version
    if rest and rest[0] in SPECIAL_VERBS:
        verb, rest = rest[0], rest[1:]
    else:
        verb = METHOD_VERBS.get(method.upper(), "")
    if not rest:
        return Attributes(verb, path, True, group)
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
    resource = rest[0]
    name = rest[1] if len(rest) >= 2 else ""
    subresource = rest[2] if len(rest) >= 3 and verb != "proxy" else ""  # proxy takes no subresource
    if not name and verb == "get":
        watch = parse_qs(query).get("watch", [""])[0].lower()
        verb = "watch" if watch not in ("", "false", "0") else "list"
    if not name and verb == "delete":
        verb = "deletecollection"
    return Attributes(verb, path, True, group, resource, subresource, namespace, name)


def emulated_minor(server_version: str) -> int:
    """34 for `v1.34.0` (a vendor suffix such as `-gke.1` aside); 0 when it names no minor."""
    match = re.match(r"v?1\.(\d+)", server_version.strip())
    return int(match.group(1)) if match else 0


def checks(attrs: Attributes, minor: int, create_check: bool | None = None) -> list[Attributes]:
    """Every authorization the request must pass, in the server's order: the filter's, then (from
    1.35, or as `create_check` says) the pod registry's `create` on a connectible subresource."""
    done = [attrs]
    enabled = minor >= CREATE_CHECK_SINCE if create_check is None else create_check
    connectible = attrs.group == "" and attrs.resource == "pods" and attrs.subresource in CREATE_CHECKED
    if enabled and connectible and attrs.verb != "create":  # ensureAuthorizedForVerb: "already authorized"
        done.append(attrs.with_verb("create"))
    return done


# ------------------------------------------------------------------ rules


def _verb_matches(rule: dict[str, Any], verb: str) -> bool:
    return any(v in ("*", verb) for v in rule.get("verbs") or ())


def _resource_matches(rule: dict[str, Any], combined: str, subresource: str) -> bool:
    for wanted in rule.get("resources") or ():
        if wanted in ("*", combined):
            return True
        if subresource and wanted == f"*/{subresource}":
            return True
    return False


def _url_matches(rule: dict[str, Any], path: str) -> bool:
    for wanted in rule.get("nonResourceURLs") or ():
        if wanted in ("*", path) or (wanted.endswith("*") and path.startswith(wanted[:-1])):
            return True
    return False


def rule_allows(attrs: Attributes, rule: dict[str, Any]) -> bool:
    """rbac.go RuleAllows."""
    if not attrs.resource_request:
        return _verb_matches(rule, attrs.verb) and _url_matches(rule, attrs.path)
    names = rule.get("resourceNames") or ()
    return (
        _verb_matches(rule, attrs.verb)
        and any(g in ("*", attrs.group) for g in rule.get("apiGroups") or ())
        and _resource_matches(rule, attrs.combined_resource, attrs.subresource)
        and (not names or attrs.name in names)
    )


def user_groups(user: str) -> tuple[str, ...]:
    """The groups the authenticator gives a user: a ServiceAccount's two, and everyone's."""
    parts = user.split(":")
    if len(parts) == 4 and parts[:2] == ["system", "serviceaccount"]:
        return ("system:serviceaccounts", f"system:serviceaccounts:{parts[2]}", AUTHENTICATED)
    return (AUTHENTICATED,)


def _applies(subject: dict[str, Any], user: str, groups: tuple[str, ...], binding_namespace: str) -> bool:
    """rule.go appliesToUser: a User by name, a Group by membership, a ServiceAccount by its user name
    (the binding's namespace when the subject names none)."""
    kind, name = subject.get("kind"), subject.get("name")
    if kind == "User":
        return name == user
    if kind == "Group":
        return name in groups
    if kind == "ServiceAccount":
        namespace = subject.get("namespace") or binding_namespace
        return f"system:serviceaccount:{namespace}:{name}" == user
    return False


@dataclass
class Rbac:
    """The RBAC objects of a cluster: Roles, ClusterRoles, RoleBindings, ClusterRoleBindings."""

    objects: Iterable[dict[str, Any]]
    create_check: bool | None = (
        None  # AuthorizePodWebsocketUpgradeCreatePermission; None: the minor's default
    )
    _cluster_roles: dict[str, list[dict[str, Any]]] = field(init=False, default_factory=dict)
    _roles: dict[tuple[str, str], list[dict[str, Any]]] = field(init=False, default_factory=dict)
    _bindings: list[dict[str, Any]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        for obj in self.objects:
            kind, meta = obj.get("kind"), obj.get("metadata") or {}
            if kind == "ClusterRole":
                self._cluster_roles[meta.get("name", "")] = list(obj.get("rules") or ())
            elif kind == "Role":
                self._roles[(meta.get("namespace", ""), meta.get("name", ""))] = list(obj.get("rules") or ())
            elif kind in ("ClusterRoleBinding", "RoleBinding"):
                self._bindings.append(obj)

    def rules_for(self, user: str, namespace: str) -> Iterator[dict[str, Any]]:
        """rule.go VisitRulesFor: the bootstrap rules, every ClusterRoleBinding's, then the RoleBindings'
        of `namespace` (a RoleBinding to a ClusterRole grants its rules in that namespace only)."""
        groups = user_groups(user)
        yield from BOOTSTRAP_RULES
        for binding in self._bindings:
            meta = binding.get("metadata") or {}
            bound_ns = meta.get("namespace", "") if binding["kind"] == "RoleBinding" else ""
            if binding["kind"] == "RoleBinding" and (not namespace or bound_ns != namespace):
                continue
            if not any(_applies(s, user, groups, bound_ns) for s in binding.get("subjects") or ()):
                continue
            ref = binding.get("roleRef") or {}
            if ref.get("kind") == "ClusterRole":
                yield from self._cluster_roles.get(ref.get("name", ""), ())
            elif ref.get("kind") == "Role" and bound_ns:
                yield from self._roles.get((bound_ns, ref.get("name", "")), ())

    def allows(self, attrs: Attributes, user: str) -> bool:
        return any(rule_allows(attrs, rule) for rule in self.rules_for(user, attrs.namespace))

    def refusal(self, method: str, path: str, query: str, server_version: str, user: str) -> str:
        """The API server's 403 message for this request by `user`, or "" when every check passes."""
        attrs = request_attributes(method, path, query)
        first, *more = checks(attrs, emulated_minor(server_version), self.create_check)
        if not self.allows(first, user):
            return forbidden_message(first, user)
        for again in more:
            if not self.allows(
                again, user
            ):  # NewForbidden(pods, name, errors.New(reason)): RBAC's reason is ""
                return f'{again.resource} "{again.name}" is forbidden: '
        return ""


def forbidden_message(attrs: Attributes, user: str) -> str:
    """responsewriters.ForbiddenStatusError: NewForbidden(group/resource, name, forbiddenMessage)."""
    if not attrs.resource_request:
        return f'forbidden: User "{user}" cannot {attrs.verb} path "{attrs.path}"'
    qualified = f"{attrs.resource}.{attrs.group}" if attrs.group else attrs.resource
    subject = f'{qualified} "{attrs.name}"' if attrs.name else qualified
    scope = f'in the namespace "{attrs.namespace}"' if attrs.namespace else "at the cluster scope"
    return (
        f'{subject} is forbidden: User "{user}" cannot {attrs.verb} resource "{attrs.combined_resource}" '
        f'in API group "{attrs.group}" {scope}'
    )
