"""Kubeconfig and context resolution, the way kubectl does it, without ever writing the file.

`KUBECONFIG` may hold several paths (merged, first definition wins); `--kubeconfig`
names one. The client's `persist_config=True` default would write refreshed tokens
back into the user's kubeconfig: we always pass False (ecosystem-facts.md 6.1).
The Kubernetes client is imported inside the functions, never at module import.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

from kubectl_rbln.errors import KubeconfigError


@dataclass(frozen=True, slots=True)
class KubeContext:
    config_file: str | None  # None: $KUBECONFIG (possibly several paths) or ~/.kube/config
    context: str
    namespace: str
    cluster: str
    user: str = ""


def _config_location(explicit: str | None) -> str:
    if explicit:
        return explicit
    env = os.environ.get("KUBECONFIG", "")
    return env if env else os.path.expanduser("~/.kube/config")


def _existing(location: str) -> list[str]:
    return [p for p in location.split(os.pathsep) if p and os.path.exists(os.path.expanduser(p))]


def resolve_context(kubeconfig: str | None, context: str | None, namespace: str | None) -> KubeContext:
    """Which context, cluster and namespace a command will use; a bad kubeconfig is one clear error."""
    location = _config_location(kubeconfig)
    if kubeconfig and not os.path.exists(os.path.expanduser(kubeconfig)):
        raise KubeconfigError(f"kubeconfig {kubeconfig} does not exist")
    if not _existing(location):
        raise KubeconfigError(
            f"no kubeconfig found (looked at {location})",
            hint="set KUBECONFIG or pass --kubeconfig, or read a bundle with -f",
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
    return KubeContext(
        config_file=location,
        context=name,
        namespace=namespace or body.get("namespace") or "default",
        cluster=str(body.get("cluster", "")),
        user=str(body.get("user", "")),
    )


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
            doc = yaml.safe_load(handle)
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


def load_configuration(ctx: KubeContext) -> Any:
    """The context's client Configuration, loaded once per command: never the global one, never persisted.

    Retries are off: a dead cluster must fail within --request-timeout, and the
    polite 429 retry lives in `live.py`, where it can honour Retry-After.
    """
    from kubernetes import client  # noqa: PLC0415
    from kubernetes.config import kube_config  # noqa: PLC0415

    configuration = client.Configuration()
    try:
        kube_config.load_kube_config(
            config_file=ctx.config_file,
            context=ctx.context,
            client_configuration=configuration,
            persist_config=False,
        )
    except Exception as exc:  # ConfigException, exec-plugin failures, unreadable cert files...
        raise KubeconfigError(f"cannot use context {ctx.context}: {_one_line(exc)}") from None
    configuration.retries = False
    configuration.client_go_retries = False
    return configuration


def new_api_client(configuration: Any) -> Any:
    """An ApiClient of its own over a shared Configuration: one per thread (ecosystem-facts.md 6.4)."""
    from kubernetes import client  # noqa: PLC0415

    return client.ApiClient(configuration=configuration)


def bearer_token(configuration: Any) -> str:
    """The token the Configuration sends, so error text can be scrubbed of it."""
    keys = getattr(configuration, "api_key", None) or {}
    # kubernetes >= 30 files it under "BearerToken"; older clients under "authorization"
    value = str(keys.get("BearerToken") or keys.get("authorization") or "")
    return value.split(" ", 1)[1] if value.lower().startswith("bearer ") else value


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
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0] if text else type(exc).__name__
