"""Kubeconfig and context resolution, the way kubectl does it, without ever writing the file.

`KUBECONFIG` may hold several paths (merged, first definition wins); `--kubeconfig`
names one. The client's `persist_config=True` default would write refreshed tokens
back into the user's kubeconfig: we always pass False (ecosystem-facts.md 6.1).
The Kubernetes client is imported inside the functions, never at module import.

Bounded: every file is parsed here first, refused when its YAML aliases expand past
MAX_KUBECONFIG_NODES (a 544-byte alias bomb otherwise takes the client's loader 2 GB), and the
client's loading (which runs `exec:` credential plugins) ends at --request-timeout.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from kubectl_rbln.cluster.bounded import Late, run_within
from kubectl_rbln.cluster.children import children, end_children
from kubectl_rbln.cluster.client_flags import (
    ClientFlags,
    apply_to_configuration,
    apply_to_entries,
    in_cluster_namespace,
    in_cluster_possible,
    service_account_dir,
)
from kubectl_rbln.cluster.redact import redact
from kubectl_rbln.errors import KubeconfigError

# Nodes of a kubeconfig once every alias is expanded. kubectl writes no anchors at all, and a
# kubeconfig of 1,000 clusters, users and contexts is about 15,000 nodes; nested aliases can make
# a few hundred bytes expand to billions (a "billion laughs"), which the client's loader walks.
MAX_KUBECONFIG_NODES = 200_000


@dataclass(frozen=True, slots=True)
class KubeContext:
    config_file: str | None  # None: $KUBECONFIG (possibly several paths) or ~/.kube/config
    context: str
    namespace: str
    cluster: str
    user: str = ""
    exec_command: str = ""  # the user's `exec:` credential plugin, if any (for a message naming it)
    flags: ClientFlags = ClientFlags()  # kubectl's connection flags, applied over the kubeconfig
    # "kubeconfig"; "in-cluster" (no kubeconfig, in a Pod: its service account); "flags" (no kubeconfig,
    # --server given: the flags are the whole configuration, as kubectl allows)
    mode: str = "kubeconfig"


def _config_location(explicit: str | None) -> str:
    if explicit:
        return explicit
    env = os.environ.get("KUBECONFIG", "")
    return env if env else os.path.expanduser("~/.kube/config")


def _existing(location: str) -> list[str]:
    return [p for p in location.split(os.pathsep) if p and os.path.exists(os.path.expanduser(p))]


def resolve_context(
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    flags: ClientFlags | None = None,
) -> KubeContext:
    """Which context, cluster and namespace a command will use; a bad kubeconfig is one clear error.

    Without any kubeconfig file, as kubectl (client-go tools/clientcmd/merged_client_builder.go
    `DeferredLoadingClientConfig.ClientConfig`): in a Pod, its service account (in-cluster); with
    `--server`, the flags alone."""
    flags = (flags or ClientFlags()).absolute()
    location = _config_location(kubeconfig)
    if kubeconfig and not os.path.exists(os.path.expanduser(kubeconfig)):
        raise KubeconfigError(f"kubeconfig {kubeconfig} does not exist")
    if not _existing(location):
        if not context and in_cluster_possible():
            return KubeContext(
                config_file=None,
                context="in-cluster",
                namespace=namespace or in_cluster_namespace(),
                cluster="in-cluster",
                user="service account",
                flags=flags,
                mode="in-cluster",
            )
        if not context and flags.server:
            return KubeContext(
                None, "", namespace or "default", flags.cluster or "", flags.user or "", "", flags, "flags"
            )
        raise KubeconfigError(
            f"no kubeconfig found (looked at {location})",
            hint="set KUBECONFIG or pass --kubeconfig (or --server), run in a Pod, or read a bundle with -f",
        )
    docs = [check_kubeconfig_file(os.path.expanduser(path)) for path in _existing(location)]
    # kubectl takes the first file's current-context; the client's merger would take the last one.
    first_current = next((str(d["current-context"]) for d in docs if d and d.get("current-context")), None)
    name = context or first_current
    if not name:
        raise KubeconfigError(f"kubeconfig {location} has no current-context; pass --context")
    listed = {str(c.get("name")) for d in docs if d for c in d.get("contexts") or [] if isinstance(c, dict)}
    if name not in listed:
        known = ", ".join(sorted(listed)) or "none"
        raise KubeconfigError(f'context "{name}" not found in {location} (contexts: {known})')
    for key, wanted, flag in (("clusters", flags.cluster, "--cluster"), ("users", flags.user, "--user")):
        names = {str(e.get("name")) for d in docs if d for e in d.get(key) or [] if isinstance(e, dict)}
        if wanted and wanted not in names:
            known = ", ".join(sorted(names)) or "none"
            raise KubeconfigError(f"{flag} {wanted}: no such {key[:-1]} in {location} ({key}: {known})")
    from kubernetes.config import kube_config  # noqa: PLC0415 - keep --help light

    try:
        # the context is named here, as kubectl does: a file without current-context still works
        loader = kube_config._get_kube_config_loader(
            filename=location, persist_config=False, active_context=name
        )
        contexts = loader.list_contexts()
    except Exception as exc:  # the client raises ConfigException, yaml errors, KeyError...
        raise KubeconfigError(f"cannot read kubeconfig {location}: {_one_line(exc)}") from None
    by_name = {c.get("name"): c for c in contexts or [] if isinstance(c, dict)}
    if name not in by_name:
        known = ", ".join(sorted(str(n) for n in by_name)) or "none"
        raise KubeconfigError(f'context "{name}" not found in {location} (contexts: {known})')
    body = by_name[name].get("context") or {}
    user = flags.user or str(body.get("user", ""))
    return KubeContext(
        config_file=location,
        context=name,
        namespace=namespace or body.get("namespace") or "default",
        cluster=flags.cluster or str(body.get("cluster", "")),
        user=user,
        exec_command="" if flags.token else _exec_command(docs, user),
        flags=flags,
    )


def _exec_command(docs: list[dict[str, Any] | None], user: str) -> str:
    """The `exec:` plugin command of `user`, as the first file defining the user has it ("" if none)."""
    for doc in docs:
        for entry in (doc or {}).get("users") or []:
            if isinstance(entry, dict) and str(entry.get("name")) == user:
                spec = entry.get("user")
                plugin = spec.get("exec") if isinstance(spec, dict) else None
                return str(plugin.get("command") or "") if isinstance(plugin, dict) else ""
    return ""


def context_names(kubeconfig: str | None) -> list[str]:
    """Every context of the (merged) kubeconfig, in the order kubectl lists them: by name.

    For `check --all-contexts`; no client import, so a broken context is found when it is used,
    as one line of its own, not here for all of them.
    """
    location = _config_location(kubeconfig)
    if kubeconfig and not os.path.exists(os.path.expanduser(kubeconfig)):
        raise KubeconfigError(f"kubeconfig {kubeconfig} does not exist")
    docs = [check_kubeconfig_file(os.path.expanduser(path)) for path in _existing(location)]
    names = {str(c.get("name")) for d in docs if d for c in d.get("contexts") or [] if isinstance(c, dict)}
    if not names:
        raise KubeconfigError(
            f"no kubeconfig context found (looked at {location})",
            hint="set KUBECONFIG or pass --kubeconfig",
        )
    return sorted(names)


def check_kubeconfig_file(path: str) -> dict[str, Any] | None:
    """A malformed kubeconfig named with its line, before the client turns it into a Python error."""
    import yaml  # noqa: PLC0415

    try:
        with open(path, encoding="utf-8") as handle:
            doc = _bounded_load(handle, path)
    except OSError as exc:
        raise KubeconfigError(f"cannot read kubeconfig {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise KubeconfigError(f"kubeconfig {path} is not UTF-8 text") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = exc.problem or exc.context
        raise KubeconfigError(f"kubeconfig {path} is not valid YAML{where}: {problem}") from None
    except yaml.YAMLError as exc:
        raise KubeconfigError(f"kubeconfig {path} is not valid YAML: {_one_line(exc)}") from None
    if doc is None:
        return None  # the client names an empty file itself
    if not isinstance(doc, dict):
        raise KubeconfigError(f"kubeconfig {path} is not a kubeconfig: a {type(doc).__name__}, not a mapping")
    for key in ("clusters", "contexts", "users"):
        entries = doc.get(key)
        if entries is not None and not (
            isinstance(entries, list) and all(isinstance(e, dict) for e in entries)
        ):
            raise KubeconfigError(f"kubeconfig {path} is not a kubeconfig: `{key}` is not a list of entries")
    return doc


def _bounded_load(handle: Any, path: str) -> Any:
    """yaml.safe_load, but the composed document is measured before anything is built from it."""
    import yaml  # noqa: PLC0415

    loader = yaml.SafeLoader(handle)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_nodes(node, MAX_KUBECONFIG_NODES) > MAX_KUBECONFIG_NODES:
            raise KubeconfigError(
                f"kubeconfig {path} is refused: its YAML aliases expand to more than "
                f"{MAX_KUBECONFIG_NODES:,} nodes (an alias bomb?)"
            )
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _expanded_nodes(root: Any, limit: int) -> int:
    """How many nodes the document holds with every alias expanded, counted over its distinct nodes
    (each once, memoized), so the count costs what the file's size does; past `limit` (or a
    recursive alias, which expands forever) it stops and answers limit + 1."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, closing = stack.pop()
        key = id(node)
        if closing:
            open_nodes.discard(key)
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            if total > limit:
                return limit + 1
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in open_nodes:  # an alias to a node it is inside of
            return limit + 1
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return sizes[id(root)]


def _children(node: Any) -> list[Any]:
    value = node.value
    if not isinstance(value, list):
        return []  # a scalar
    if value and isinstance(value[0], tuple):  # a mapping: (key, value) pairs
        return [part for pair in value for part in pair]
    return value


def load_configuration(ctx: KubeContext, timeout: float = 0.0) -> Any:
    """The context's client Configuration, loaded once per command: never the global one, never persisted.

    Retries are off: a dead cluster must fail within --request-timeout, and the
    polite 429 retry lives in `live.py`, where it can honour Retry-After. Loading runs the user's
    `exec:` credential plugin (and OIDC or gcp refreshes): with `timeout` (--request-timeout), it
    ends then, one line, exit 3, and the plugin still running is ended (cluster/children.py).
    """
    if not timeout:
        return _load_configuration(ctx)
    before = children()
    try:
        return run_within(
            time.monotonic() + timeout, lambda: _load_configuration(ctx), name="rbln-credentials"
        )
    except Late:
        # the plugin, and nothing of ours started before it; the loader's thread then logs "exec: process
        # returned -15" through the root logger, which nothing of ours reads: our one line says it all
        logging.disable(logging.ERROR)
        end_children(before)
        plugin = f"its exec credential plugin {ctx.exec_command!r} " if ctx.exec_command else ""
        user = f' (user "{ctx.user}")' if ctx.user else ""
        raise KubeconfigError(
            f"the credentials of context {ctx.context}{user} were not ready within {timeout:g}s "
            f"(--request-timeout): {plugin or 'loading them '}did not finish"
        ) from None


def _load_configuration(ctx: KubeContext) -> Any:
    from kubernetes import client  # noqa: PLC0415

    configuration = client.Configuration()
    try:
        if ctx.mode == "in-cluster":
            _load_in_cluster(configuration, ctx.flags)
        else:
            _kubeconfig_loader(ctx).load_and_set(configuration)
    except KubeconfigError:
        raise
    except Exception as exc:  # ConfigException, exec-plugin failures, unreadable cert files...
        what = "the in-cluster configuration" if ctx.mode == "in-cluster" else f"context {ctx.context}"
        raise KubeconfigError(f"cannot use {what}: {_one_line(exc)}") from None
    configuration.retries = False
    configuration.client_go_retries = False
    return configuration


def _kubeconfig_loader(ctx: KubeContext) -> Any:
    """The client's loader over the kubeconfig (or, with `--server` and none, over the flags alone), its
    context's cluster and user entries replaced and overridden by the flags before anything is loaded:
    with `--token`, the user's exec plugin never runs."""
    from kubernetes.config import kube_config  # noqa: PLC0415

    if ctx.mode == "flags":
        entries = {
            "clusters": [{"name": "flags", "cluster": {}}],
            "users": [{"name": "flags", "user": {}}],
            "contexts": [{"name": "flags", "context": {"cluster": "flags", "user": "flags"}}],
        }
        loader = kube_config.KubeConfigLoader(entries, active_context="flags", config_base_path=os.getcwd())
    else:
        loader = kube_config._get_kube_config_loader(
            filename=ctx.config_file, persist_config=False, active_context=ctx.context
        )
    settings = loader._config["contexts"].get_with_name(ctx.context if ctx.mode != "flags" else "flags")
    body = settings["context"].value
    if ctx.flags.cluster:
        body["cluster"] = ctx.flags.cluster
    if ctx.flags.user:
        body["user"] = ctx.flags.user
    loader.set_active_context(ctx.context if ctx.mode != "flags" else "flags")
    cluster = loader._cluster.value if loader._cluster is not None else {}
    if loader._user is None:  # a context without a user: the flags may still bring credentials
        loader._user = kube_config.ConfigNode("user", {})
    apply_to_entries(cluster, loader._user.value, ctx.flags)
    return loader


def _load_in_cluster(configuration: Any, flags: ClientFlags) -> None:
    """A Pod's service account through the client's in-cluster loader (token re-read as it rotates),
    then the flags over it."""
    from kubernetes.config.incluster_config import InClusterConfigLoader  # noqa: PLC0415

    folder = service_account_dir()
    InClusterConfigLoader(
        token_filename=os.path.join(folder, "token"), cert_filename=os.path.join(folder, "ca.crt")
    ).load_and_set(configuration)
    apply_to_configuration(configuration, flags)


def new_api_client(configuration: Any) -> Any:
    """An ApiClient of its own over a shared Configuration: one per thread (ecosystem-facts.md 6.4)."""
    from kubernetes import client  # noqa: PLC0415

    return client.ApiClient(configuration=configuration)


def configuration_secrets(configuration: Any) -> tuple[str, ...]:
    """What error text must be scrubbed of: the token the Configuration sends (with and without its
    `Bearer `/`Basic ` prefix), its password, and the password of its server URL; longest first."""
    found: set[str] = set()
    # kubernetes >= 30 files the token under "BearerToken"; older clients under "authorization"
    for value in (getattr(configuration, "api_key", None) or {}).values():
        text = str(value or "")
        found.update((text, text.split(" ", 1)[-1]))
    found.add(str(getattr(configuration, "password", "") or ""))
    with contextlib.suppress(ValueError):  # an unparsable URL: its userinfo is masked by pattern anyway
        found.add(urlsplit(str(configuration.host)).password or "")
    return tuple(sorted((s for s in found if s), key=len, reverse=True))


def remove_credential_files() -> None:
    """Delete the temp files the client wrote a kubeconfig's `client-key-data` (a private key) and
    certificate data into. Why: it removes them from an atexit hook, and the CLI leaves with
    os._exit (cli/main.py `_leave`), which runs none: every command against an HTTPS cluster left
    the user's private key in $TMPDIR."""
    module = sys.modules.get("kubernetes.config.kube_config")  # never imported: nothing was written
    cleanup = getattr(module, "_cleanup_temp_files", None)
    if callable(cleanup):
        cleanup()


def _one_line(exc: BaseException) -> str:
    text = redact(str(exc).strip() or type(exc).__name__)
    return text.splitlines()[0] if text else type(exc).__name__
