"""Where dynamic completions come from: the `-f` bundle, the kubeconfig, or the cluster through kubectl.

The cluster is asked through the user's own `kubectl` (it is on PATH whenever kubectl
completes a plugin): it already knows every auth plugin, and it costs no import of the
Kubernetes client. Every lookup is bounded by a short timeout and returns nothing on any
error: a completion must never print a traceback or hang the shell.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

LOOKUP_TIMEOUT = 2.0  # seconds; kubectl's own completion gives up after about the same
NAME_AND_PHASE = '{range .items[*]}{.metadata.name}{"\\t"}{.status.phase}{"\\n"}{end}'
NAMES = '{range .items[*]}{.metadata.name}{"\\n"}{end}'


# The connection flags of cli/options.py (click's parameter name -> kubectl's flag, the same names as
# cli-runtime genericclioptions.ConfigFlags): typed on the line being completed, they reach kubectl's
# lookup too, so names come from the cluster and the user the command itself will read as.
CONNECTION_FLAGS = {
    "cluster_name": "--cluster",
    "user_name": "--user",
    "server": "--server",
    "token": "--token",
    "impersonate": "--as",
    "impersonate_groups": "--as-group",
    "impersonate_uid": "--as-uid",
    "certificate_authority": "--certificate-authority",
    "client_certificate": "--client-certificate",
    "client_key": "--client-key",
    "insecure_skip_tls_verify": "--insecure-skip-tls-verify",
    "tls_server_name": "--tls-server-name",
}


def connection_args(params: Mapping[str, Any]) -> tuple[str, ...]:
    """The typed connection flags as kubectl arguments (`--as=jane`, `--as-group=a --as-group=b`)."""
    args: list[str] = []
    for name, flag in CONNECTION_FLAGS.items():
        value = params.get(name)
        if value is True:
            args.append(f"{flag}=true")
        elif isinstance(value, (tuple, list)):
            args += [f"{flag}={v}" for v in value if v]
        elif isinstance(value, str) and value:
            args.append(f"{flag}={value}")
    return tuple(args)


def _first(value: Any) -> str | None:
    """`--context` is repeatable on `check`: the first one typed decides where names come from."""
    if isinstance(value, (tuple, list)):
        return str(value[0]) if value else None
    return value or None


@dataclass(frozen=True, slots=True)
class Scope:
    """The flags already typed on the command line that decide where names come from."""

    filenames: tuple[str, ...] = ()
    namespace: str | None = None
    context: str | None = None
    kubeconfig: str | None = None
    all_namespaces: bool = False  # -A typed (and no -n): names from every namespace
    connection: tuple[str, ...] = ()  # --as, --token, --server... as kubectl arguments

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Scope:
        return cls(
            filenames=tuple(params.get("filenames") or ()),
            namespace=params.get("namespace") or None,
            context=_first(params.get("context")),
            kubeconfig=params.get("kubeconfig") or None,
            all_namespaces=bool(params.get("all_namespaces")),
            connection=connection_args(params),
        )


def _bundle_objects(scope: Scope, kind: str) -> list[dict[str, Any]]:
    from kubectl_rbln.cluster.files import load_objects  # noqa: PLC0415 - only when -f was typed

    return [o for o in load_objects(list(scope.filenames)) if o.get("kind") == kind]


def _in_namespace(objects: Iterable[dict[str, Any]], namespace: str | None) -> list[tuple[str, str]]:
    """(name, namespace) of the objects in `namespace`, or of all when no -n was typed."""
    found = []
    for obj in objects:
        meta = obj.get("metadata") or {}
        if namespace is None or meta.get("namespace") == namespace:
            found.append((str(meta.get("name", "")), str(meta.get("namespace", ""))))
    return [(name, ns) for name, ns in found if name]


def kubectl_lines(scope: Scope, *args: str) -> list[str]:
    """Run `kubectl ARGS` against the scope's kubeconfig/context; its stdout lines, or [] on any trouble."""
    binary = shutil.which("kubectl")
    if binary is None:
        return []
    command = [binary, *args, f"--request-timeout={LOOKUP_TIMEOUT:g}s"]
    if scope.kubeconfig:
        command.append(f"--kubeconfig={scope.kubeconfig}")
    if scope.context:
        command.append(f"--context={scope.context}")
    command += scope.connection
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=LOOKUP_TIMEOUT + 1,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    return [line for line in done.stdout.splitlines() if line.strip()]


def _namespace_args(scope: Scope) -> list[str]:
    if scope.namespace:
        return [f"--namespace={scope.namespace}"]
    return ["--all-namespaces"] if scope.all_namespaces else []


def pod_names(scope: Scope) -> list[str]:
    """Pod names (`name<TAB>phase`), from the bundle when -f was typed, else from the cluster."""
    if scope.filenames:
        pods = _bundle_objects(scope, "Pod")
        phases = {
            (
                str((p.get("metadata") or {}).get("name")),
                str((p.get("metadata") or {}).get("namespace")),
            ): str((p.get("status") or {}).get("phase", ""))
            for p in pods
        }
        chosen = _in_namespace(pods, scope.namespace)
        return [f"{name}\t{phases.get((name, ns), '')}".rstrip("\t") for name, ns in chosen]
    return [
        line.rstrip("\t")
        for line in kubectl_lines(
            scope, "get", "pods", *_namespace_args(scope), "-o", f"jsonpath={NAME_AND_PHASE}"
        )
    ]


def template_names(scope: Scope) -> list[str]:
    """ResourceClaimTemplate names, from the bundle or the cluster."""
    if scope.filenames:
        templates = _bundle_objects(scope, "ResourceClaimTemplate")
        return [name for name, _ in _in_namespace(templates, scope.namespace)]
    return kubectl_lines(
        scope,
        "get",
        "resourceclaimtemplates.resource.k8s.io",
        *_namespace_args(scope),
        "-o",
        f"jsonpath={NAMES}",
    )


def node_names(scope: Scope) -> list[str]:
    """Node names (`topo NODE`): the bundle's Nodes when -f was typed, else the cluster's."""
    if scope.filenames:
        return [name for name, _ in _in_namespace(_bundle_objects(scope, "Node"), None)]
    return kubectl_lines(scope, "get", "nodes", "-o", f"jsonpath={NAMES}")


def namespaces(scope: Scope) -> list[str]:
    """Namespaces: the ones the bundle's objects live in, else the cluster's."""
    if scope.filenames:
        from kubectl_rbln.cluster.files import load_objects  # noqa: PLC0415

        objects = load_objects(list(scope.filenames))
        seen = {str((o.get("metadata") or {}).get("namespace") or "") for o in objects}
        return sorted(ns for ns in seen if ns)
    return kubectl_lines(scope, "get", "namespaces", "-o", f"jsonpath={NAMES}")


def kubeconfig_paths(scope: Scope) -> list[str]:
    """The files kubectl would merge: --kubeconfig, else every path of $KUBECONFIG, else ~/.kube/config."""
    if scope.kubeconfig:
        return [os.path.expanduser(scope.kubeconfig)]
    env = os.environ.get("KUBECONFIG", "")
    paths = [p for p in env.split(os.pathsep) if p] if env else ["~/.kube/config"]
    return [os.path.expanduser(p) for p in paths]


def context_names(scope: Scope) -> list[str]:
    """Context names of the merged kubeconfig (first definition wins), read as plain YAML: no client."""
    import yaml  # noqa: PLC0415

    names: list[str] = []
    for path in kubeconfig_paths(scope):
        try:
            with open(path, encoding="utf-8") as handle:
                document = yaml.safe_load(handle) or {}
        except (OSError, yaml.YAMLError):
            continue
        for entry in document.get("contexts") or [] if isinstance(document, dict) else []:
            name = entry.get("name") if isinstance(entry, dict) else None
            if name and name not in names:
                names.append(str(name))
    return names
