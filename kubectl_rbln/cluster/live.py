"""Raw JSON reads from a live cluster through the official client.

Typed models are about 5x slower and 3x the memory on large lists
(harness-facts.md), so every read here is `_preload_content=False` + `json.loads`,
paginated with `limit`/`continue`. One ApiClient per thread: a shared one corrupts
concurrent calls (ecosystem-facts.md 6.4). Only GET is ever sent from this module.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kubectl_rbln.cluster.kubeconfig import KubeContext, new_api_client
from kubectl_rbln.errors import ClusterError

PAGE_SIZE = 500


@dataclass(slots=True)
class ApiRefusal(Exception):
    """A 403 or 404 on one read: the caller decides whether it degrades one check or ends the command."""

    status: int
    verb: str
    resource: str
    message: str

    def __str__(self) -> str:
        return self.message


def describe_resource(path: str) -> tuple[str, str]:
    """`/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims` -> ("list", "resourceclaims.resource.k8s.io in ns")."""
    parts = [p for p in path.split("/") if p]
    group = ""
    if parts and parts[0] == "apis" and len(parts) >= 3:
        group = parts[1]
        parts = parts[3:]
    elif parts and parts[0] == "api":
        parts = parts[2:]
    namespace = None
    if len(parts) >= 2 and parts[0] == "namespaces":
        namespace = parts[1]
        parts = parts[2:]
    resource = parts[0] if parts else "(discovery)"
    qualified = f"{resource}.{group}" if group else resource
    verb = "get" if len(parts) >= 2 else "list"
    scope = f' in namespace "{namespace}"' if namespace else " at the cluster scope"
    return verb, qualified + scope


class LiveClient:
    """GETs JSON from the API server; network failures become ClusterError (exit 3)."""

    def __init__(self, ctx: KubeContext, *, timeout: float) -> None:
        self.ctx = ctx
        self.timeout = timeout
        self._local = threading.local()
        self.server = ""

    def _api(self) -> Any:
        api = getattr(self._local, "api", None)
        if api is None:
            api = new_api_client(self.ctx, timeout=self.timeout)
            self._local.api = api
            self.server = api.configuration.host
        return api

    def get(self, path: str, query: dict[str, Any] | None = None) -> Any:
        """One GET; 403/404 raise ApiRefusal, everything else unusual raises ClusterError."""
        from kubernetes.client.exceptions import ApiException  # noqa: PLC0415

        api = self._api()
        try:
            response = api.call_api(
                path,
                "GET",
                query_params=list((query or {}).items()),
                header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"],
                _preload_content=False,
                _return_http_data_only=True,
                _request_timeout=self.timeout or None,
            )
            body = response.data
        except ApiException as exc:
            raise self._refusal(path, exc.status, exc.reason, exc.body) from None
        except Exception as exc:  # urllib3 connection, TLS and timeout errors
            raise self._network_error(exc) from None
        try:
            return json.loads(body)
        except ValueError:
            raise ClusterError(f"{self.server}{path}: the server did not answer with JSON") from None

    def list(self, path: str, query: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return list(self.iter_list(path, query))

    def iter_list(self, path: str, query: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """All items of a list, page by page; items get the kind and apiVersion the list omits."""
        params = dict(query or {})
        params["limit"] = PAGE_SIZE
        while True:
            page = self.get(path, params)
            kind = str(page.get("kind", ""))
            item_kind = kind[: -len("List")] if kind.endswith("List") else ""
            api_version = page.get("apiVersion", "")
            for item in page.get("items") or []:
                if isinstance(item, dict):
                    item.setdefault("kind", item_kind)
                    item.setdefault("apiVersion", api_version)
                    yield item
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return
            params["continue"] = token

    def _refusal(self, path: str, status: int, reason: str, body: Any) -> Exception:
        verb, resource = describe_resource(path)
        detail = _status_message(body) or reason or f"HTTP {status}"
        if status == 401:
            return ClusterError(
                f"the cluster at {self.server} refused our credentials (401 Unauthorized): {detail}",
                hint=f"check the user of context {self.ctx.context}; refreshed tokens are not written back",
            )
        if status in (403, 404):
            text = f"{verb} {resource}: {'forbidden' if status == 403 else 'not found'}: {detail}"
            return ApiRefusal(status=status, verb=verb, resource=resource, message=text)
        return ClusterError(f"{verb} {resource}: the server answered {status}: {detail}")

    def _network_error(self, exc: BaseException) -> ClusterError:
        text = str(exc)
        lowered = text.lower()
        if "ssl" in lowered or "certificate" in lowered:
            return ClusterError(f"TLS handshake with {self.server} failed: {_short(text)}")
        if "timed out" in lowered or "timeout" in lowered:
            return ClusterError(f"the cluster at {self.server} did not answer within {self.timeout:g}s")
        if "refused" in lowered:
            return ClusterError(f"cannot reach the cluster at {self.server}: connection refused")
        if "name or service not known" in lowered or "nodename nor servname" in lowered:
            return ClusterError(f"cannot reach the cluster at {self.server}: unknown host")
        return ClusterError(f"cannot reach the cluster at {self.server}: {_short(text)}")


def _status_message(body: Any) -> str:
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            parsed = json.loads(body)
        except ValueError:
            return body.strip().splitlines()[0] if body.strip() else ""
        if isinstance(parsed, dict):
            return str(parsed.get("message", ""))
    return ""


def _short(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "unknown error"
    return line if len(line) <= 200 else line[:197] + "..."
