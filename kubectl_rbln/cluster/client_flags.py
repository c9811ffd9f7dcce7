"""kubectl's connection flags (cli-runtime's ConfigFlags), applied the way client-go applies them.

Why here: kubectl never forwards its own flags to a plugin, so `kubectl rbln check --as=jane` must be
parsed and honoured by the plugin itself (ecosystem-facts.md 4.5), and each flag must change what the
API server receives, not merely be accepted. The rules are client-go's
(k8s.io/client-go tools/clientcmd/client_config.go, `getAuthInfo` and `getCluster`):

- `--cluster` / `--user` pick another entry of the kubeconfig than the context's;
- `--server` replaces the cluster's server, and with it clears the kubeconfig's tls-server-name
  (only `--tls-server-name` given with it is kept);
- `--certificate-authority` or `--insecure-skip-tls-verify` replace the cluster's CA and its TLS
  verification together (a CA from the kubeconfig does not survive `--insecure-skip-tls-verify`);
- `--client-certificate` / `--client-key` replace the user's file and its inline data;
- `--token` is sent instead of any credential plugin's (client-go's exec authenticator is skipped when a
  token is given: plugin/pkg/client/auth/exec/exec.go `UpdateTransportConfig`);
- `--as`, `--as-group` (repeatable), `--as-uid` become the Impersonate-User, Impersonate-Group and
  Impersonate-Uid headers on every request (transport/round_trippers.go `impersonatingRoundTripper`).

Every request also says who sends it: `User-Agent: kubectl-rbln/vVERSION (OS/ARCH)`, as kubectl says
`kubectl/v1.37.1 (linux/amd64) ...` (client-go rest/config.go `DefaultKubernetesUserAgent`), so an
API server's audit log names the plugin instead of the client library's `OpenAPI-Generator/...`.
"""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass
from typing import Any

# Where a Pod finds its service account (client-go rest/config.go `InClusterConfig`); the variable
# moves it, for tests and for images that mount the files elsewhere.
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
SERVICE_ACCOUNT_DIR_ENV = "KUBECTL_RBLN_SERVICE_ACCOUNT_DIR"


@dataclass(frozen=True, slots=True)
class ClientFlags:
    """What the user typed of kubectl's connection flags; empty values change nothing."""

    cluster: str | None = None
    user: str | None = None
    server: str | None = None
    certificate_authority: str | None = None
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None
    client_certificate: str | None = None
    client_key: str | None = None
    token: str | None = None
    impersonate: str | None = None
    impersonate_groups: tuple[str, ...] = ()
    impersonate_uid: str | None = None

    def absolute(self) -> ClientFlags:
        """File flags made absolute: a path typed on the command line is the shell's, not relative to the
        kubeconfig's folder (which is where the client resolves a kubeconfig's own relative paths)."""

        def full(path: str | None) -> str | None:
            return os.path.abspath(os.path.expanduser(path)) if path else path

        return ClientFlags(
            cluster=self.cluster,
            user=self.user,
            server=self.server,
            certificate_authority=full(self.certificate_authority),
            insecure_skip_tls_verify=self.insecure_skip_tls_verify,
            tls_server_name=self.tls_server_name,
            client_certificate=full(self.client_certificate),
            client_key=full(self.client_key),
            token=self.token,
            impersonate=self.impersonate,
            impersonate_groups=self.impersonate_groups,
            impersonate_uid=self.impersonate_uid,
        )


def user_agent() -> str:
    """`kubectl-rbln/v0.9.0 (linux/amd64)`: the plugin, its version and platform, as kubectl says its own."""
    from kubectl_rbln import __version__  # noqa: PLC0415

    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(machine, machine or "unknown")
    system = "darwin" if sys.platform == "darwin" else ("windows" if os.name == "nt" else sys.platform)
    return f"kubectl-rbln/v{__version__} ({system}/{arch})"


def request_headers(flags: ClientFlags) -> list[tuple[str, str]]:
    """The headers every request carries besides the client's own: the User-Agent and impersonation.
    A list, not a dict: each `--as-group` is an Impersonate-Group header of its own, as client-go
    sends them (a comma-joined one would be one group named "a,b")."""
    headers = [("User-Agent", user_agent())]
    if flags.impersonate:
        headers.append(("Impersonate-User", flags.impersonate))
    if flags.impersonate_uid:
        headers.append(("Impersonate-Uid", flags.impersonate_uid))
    headers.extend(("Impersonate-Group", group) for group in flags.impersonate_groups)
    return headers


def apply_to_entries(cluster: dict[str, Any], user: dict[str, Any], flags: ClientFlags) -> None:
    """The flags written into the kubeconfig's cluster and user entries before the client loads them
    (client-go's order: overrides merged over the file's entry, then the CA and TLS-name rules)."""
    if flags.server:
        cluster["server"] = flags.server
    if flags.certificate_authority or flags.insecure_skip_tls_verify:
        cluster.pop("certificate-authority-data", None)
        cluster.pop("certificate-authority", None)
        if flags.certificate_authority:
            cluster["certificate-authority"] = flags.certificate_authority
        cluster["insecure-skip-tls-verify"] = flags.insecure_skip_tls_verify
    if flags.tls_server_name or flags.server:
        cluster.pop("tls-server-name", None)
        if flags.tls_server_name:
            cluster["tls-server-name"] = flags.tls_server_name
    if flags.client_certificate:
        user.pop("client-certificate-data", None)
        user["client-certificate"] = flags.client_certificate
    if flags.client_key:
        user.pop("client-key-data", None)
        user["client-key"] = flags.client_key
    if flags.token:
        for key in ("tokenFile", "exec", "auth-provider", "username", "password"):
            user.pop(key, None)
        user["token"] = flags.token
    elif flags.client_certificate:
        user.pop("exec", None)  # client-go skips the exec plugin when a client certificate is given


def apply_to_configuration(configuration: Any, flags: ClientFlags) -> None:
    """The same flags over a Configuration the client built without a kubeconfig (in a Pod)."""
    if flags.server:
        configuration.host = flags.server.rstrip("/")
        configuration.tls_server_name = None
    if flags.certificate_authority or flags.insecure_skip_tls_verify:
        configuration.ssl_ca_cert = flags.certificate_authority or None
        configuration.verify_ssl = not flags.insecure_skip_tls_verify
    if flags.tls_server_name:
        configuration.tls_server_name = flags.tls_server_name
    if flags.client_certificate:
        configuration.cert_file = flags.client_certificate
    if flags.client_key:
        configuration.key_file = flags.client_key
    if flags.token:
        configuration.api_key["BearerToken"] = f"Bearer {flags.token}"
        configuration.refresh_api_key_hook = None  # the service account's file no longer speaks for us


def service_account_dir() -> str:
    return os.environ.get(SERVICE_ACCOUNT_DIR_ENV) or SERVICE_ACCOUNT_DIR


def in_cluster_possible() -> bool:
    """client-go's test (tools/clientcmd/client_config.go `inClusterClientConfig.Possible`): both
    KUBERNETES_SERVICE_HOST and _PORT set, and the service account's token file there."""
    token = os.path.join(service_account_dir(), "token")
    return bool(
        os.environ.get("KUBERNETES_SERVICE_HOST")
        and os.environ.get("KUBERNETES_SERVICE_PORT")
        and os.path.isfile(token)
    )


def in_cluster_namespace() -> str:
    """A Pod's namespace as client-go reads it (`inClusterClientConfig.Namespace`): POD_NAMESPACE, else
    the service account's namespace file, else default."""
    named = os.environ.get("POD_NAMESPACE", "")
    if named:
        return named
    try:
        with open(os.path.join(service_account_dir(), "namespace"), encoding="utf-8") as handle:
            text = handle.read(256).strip()
    except OSError:
        text = ""
    return text or "default"
