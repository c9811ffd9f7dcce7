"""Discovery documents and Status errors, shaped like kube-apiserver's.

kubectl decides what a resource is (scope, verbs, subresources) from these
documents alone, and prints `Error from server (Reason): message` from a
Status body, so both are reproduced field for field. Replies are plain
`application/json`: kubectl then falls back from aggregated discovery.
"""

from __future__ import annotations

import re
from typing import Any

from kubectl_rbln.replay.resources import Group, Resource

READ_VERBS = ["get", "list"]


def status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A `Status` failure body, as the apiserver sends with 4xx/5xx."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    body["details"] = details if details is not None else {}
    return body


def not_found(resource: Resource, name: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name, "kind": resource.plural}
    if resource.group:
        details["group"] = resource.group
    qualified = f"{resource.plural}.{resource.group}" if resource.group else resource.plural
    return status(404, "NotFound", f'{qualified} "{name}" not found', details)


def version_info(git_version: str) -> dict[str, str]:
    """`/version`: major/minor parsed from gitVersion (`v1.34.2` -> 1, 34)."""
    match = re.match(r"^v?(\d+)\.(\d+)", git_version)
    major, minor = match.groups() if match else ("", "")
    return {
        "major": major,
        "minor": minor,
        "gitVersion": git_version,
        "gitCommit": "",
        "gitTreeState": "clean",
        "buildDate": "1970-01-01T00:00:00Z",
        "goVersion": "",
        "compiler": "gc",
        "platform": "linux/amd64",
    }


def api_versions(server_address: str) -> dict[str, Any]:
    """`/api`: the legacy core group."""
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def api_group(group: Group) -> dict[str, Any]:
    def gv(version: str) -> dict[str, str]:
        return {"groupVersion": f"{group.name}/{version}", "version": version}

    return {
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group.name,
        "versions": [gv(v) for v in group.ordered_versions()],
        "preferredVersion": gv(group.preferred),
    }


def api_group_list(groups: dict[str, Group]) -> dict[str, Any]:
    """`/apis`: every named group the bundle uses, sorted by name."""
    return {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [api_group(groups[name]) for name in sorted(groups) if name],
    }


def api_resource_list(group: Group, version: str) -> dict[str, Any]:
    """`/api/v1` or `/apis/<g>/<v>`: each resource read-only (get, list); pods add log and exec."""
    resources: list[dict[str, Any]] = []
    for plural in sorted(group.resources):
        res = group.resources[plural]
        entry: dict[str, Any] = {
            "name": res.plural,
            "singularName": res.singular,
            "namespaced": res.namespaced,
            "kind": res.kind,
            "verbs": list(READ_VERBS),
        }
        if res.short_names:
            entry["shortNames"] = list(res.short_names)
        resources.append(entry)
        if group.name == "" and plural == "pods":
            resources.append(
                {
                    "name": "pods/exec",
                    "singularName": "",
                    "namespaced": True,
                    "kind": "PodExecOptions",
                    "verbs": ["create", "get"],
                }
            )
            resources.append(
                {"name": "pods/log", "singularName": "", "namespaced": True, "kind": "Pod", "verbs": ["get"]}
            )
    group_version = f"{group.name}/{version}" if group.name else version
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    }
