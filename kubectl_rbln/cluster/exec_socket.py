"""The pods/exec websocket, opened with every header a live read sends.

Why not `kubernetes.stream.stream()`: its `create_websocket` (kubernetes/stream/ws_client.py) forwards
only the Authorization header of the request it was handed, so an exec went out as
`User-Agent: Python/3.x websocket-client/...` and without the Impersonate-* headers: `--as jane` would
have probed the Pods as the real user. Here the request is serialized by the Pod's own ApiClient
(which applies the bearer token, refreshing an exec plugin's or a service account's), the websocket is
opened with the same TLS settings the client's `create_websocket` uses, and the client's `WSClient`
reads the channels as before.
"""

from __future__ import annotations

import ssl
from typing import Any
from urllib.parse import quote

# the channel protocols kubectl offers, newest first (k8s.io/apimachinery util/remotecommand)
PROTOCOLS = "v5.channel.k8s.io,v4.channel.k8s.io"


def exec_path(namespace: str, pod: str) -> str:
    return f"/api/v1/namespaces/{quote(namespace, safe='')}/pods/{quote(pod, safe='')}/exec"


def open_exec(
    api: Any,
    namespace: str,
    pod: str,
    container: str,
    command: list[str],
    extra_headers: list[tuple[str, str]],
) -> Any:
    """A connected `WSClient` running `command` in the container; the handshake's failure raises."""
    from kubernetes.stream.ws_client import get_websocket_url  # noqa: PLC0415

    query = [("command", part) for part in command]
    query += [("container", container), ("stderr", "true"), ("stdin", "false"), ("stdout", "true")]
    query.append(("tty", "false"))
    _, url, headers, _, _ = api.param_serialize(
        "GET", exec_path(namespace, pod), query_params=query, auth_settings=["BearerToken"]
    )
    lines = [f"{name}: {value}" for name, value in headers.items() if name.lower() == "authorization"]
    lines += [f"{name}: {value}" for name, value in extra_headers]
    lines.append(f"Sec-WebSocket-Protocol: {PROTOCOLS}")
    return _channel_client(api.configuration, get_websocket_url(url), lines)


def _ssl_options(configuration: Any, url: str) -> dict[str, Any]:
    """TLS as the client's `create_websocket` sets it up: the CA (or certifi's), the client certificate,
    the SNI name (--tls-server-name), no verification with --insecure-skip-tls-verify."""
    if url.startswith("wss://") and configuration.verify_ssl:
        import certifi  # noqa: PLC0415 - a dependency of the kubernetes client

        options: dict[str, Any] = {
            "cert_reqs": ssl.CERT_REQUIRED,
            "ca_certs": configuration.ssl_ca_cert or certifi.where(),
        }
        if configuration.assert_hostname is not None:
            options["check_hostname"] = configuration.assert_hostname
    else:
        options = {"cert_reqs": ssl.CERT_NONE}
    if configuration.cert_file:
        options["certfile"] = configuration.cert_file
    if configuration.key_file:
        options["keyfile"] = configuration.key_file
    if configuration.tls_server_name:
        options["server_hostname"] = configuration.tls_server_name
    return options


def _websocket(configuration: Any, url: str, lines: list[str]) -> Any:
    from websocket import WebSocket  # noqa: PLC0415

    sock = WebSocket(sslopt=_ssl_options(configuration, url), skip_utf8_validation=False)
    sock.connect(url, header=lines)
    return sock


def _channel_client(configuration: Any, url: str, lines: list[str]) -> Any:
    """A `WSClient` over a socket we opened: made without its `__init__` (which would open its own,
    with the Authorization header only), with the attributes that `__init__` sets
    (kubernetes/stream/ws_client.py); the e2e tests exec through it against the replay server."""
    from io import StringIO  # noqa: PLC0415

    from kubernetes.stream.ws_client import WSClient  # noqa: PLC0415

    sock = _websocket(configuration, url, lines)
    client = WSClient.__new__(WSClient)
    client._channels = {}
    client._closed_channels = set()
    client.binary = False
    client.newline = "\n"
    client._all = StringIO()
    client.sock = sock
    client.subprotocol = getattr(sock, "subprotocol", None)
    if not client.subprotocol:
        for name, value in (sock.getheaders() or {}).items():
            if name.lower() == "sec-websocket-protocol":
                client.subprotocol = value
    client._connected = True
    client._returncode = None
    return client
