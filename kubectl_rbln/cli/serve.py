"""`kubectl rbln serve BUNDLE`: a customer's dump as a read-only Kubernetes API, on loopback by default.

By default the server has no authentication: off loopback, anyone who reaches the port reads the
bundle, so `--address` elsewhere is allowed but warned about, and the address printed is the one bound.
`--tls` serves HTTPS with a CA of its own (replay/tls.py); `--require-client-cert` and
`--require-token` make it refuse whoever lacks the client certificate it made or the token.
"""

from __future__ import annotations

import gc
import ipaddress
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from kubectl_rbln.catalog.cli_words import cli_line
from kubectl_rbln.cli.lang import chosen_lang, lang_option
from kubectl_rbln.cluster.files import load_objects

if TYPE_CHECKING:
    from kubectl_rbln.replay.tls import TlsSettings

WILDCARDS = frozenset({"", "0.0.0.0", "::"})


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and `localhost`: only this machine can connect."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name other than localhost: may resolve anywhere
        return False


def _url(host: str, port: int, scheme: str = "http") -> str:
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


def _where(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{shown or '0.0.0.0'}:{port}"


def exposure_warning(host: str, port: int, authenticated: bool = False, lang: str = "en") -> str | None:
    """None on loopback or with authentication; else one line naming the exposure: unauthenticated,
    read-only, which interfaces."""
    if is_loopback(host) or authenticated:
        return None
    template = (
        "warning: serving on every interface ({address}) without authentication: anyone who can reach "
        "this machine on port {port} can read the whole bundle (read-only: writes are refused)"
        if host in WILDCARDS
        else "warning: serving on {address} without authentication: anyone who can reach this machine on "
        "port {port} can read the whole bundle (read-only: writes are refused)"
    )
    return cli_line(template, lang, address=_where(host, port), port=port)


def announce(
    listen_host: str,
    client_host: str,
    port: int,
    count: int,
    kubeconfig_out: str | None,
    tls: TlsSettings | None = None,
    lang: str = "en",
) -> list[str]:
    """The stderr lines once bound: the warning if any, the address truly listened on, and with TLS
    where its CA (and the client certificate) are and what it requires."""
    authenticated = tls is not None and (tls.require_client_cert or bool(tls.require_token))
    lines = [w for w in [exposure_warning(listen_host, port, authenticated, lang)] if w]
    objects = cli_line("{count} object" if count == 1 else "{count} objects", lang, count=count)
    scope = cli_line("every interface, read-only" if listen_host in WILDCARDS else "read-only", lang)
    scheme = "https" if tls is not None else "http"
    points = (
        cli_line("; the kubeconfig uses {url}", lang, url=_url(client_host, port, scheme))
        if client_host != listen_host
        else ""
    )
    where = kubeconfig_out or cli_line("the kubeconfig above, saved to a file", lang)
    lines.append(
        cli_line(
            "serving {objects} at {url} ({scope}){points}; use KUBECONFIG={where}; Ctrl-C stops",
            lang,
            objects=objects,
            url=_url(listen_host or "0.0.0.0", port, scheme),
            scope=scope,
            points=points,
            where=where,
        )
    )
    if tls is not None:
        lines.append(_tls_line(tls, lang))
    return lines


def _tls_line(tls: TlsSettings, lang: str) -> str:
    """Where the CA (and the client certificate) are, and what every request needs."""
    files = tls.files
    wants = [
        cli_line(want, lang)
        for want, on in (
            ("a client certificate signed by it", tls.require_client_cert),
            ("the bearer token", bool(tls.require_token)),
        )
        if on
    ]
    needs = cli_line("; every request needs {wants}", lang, wants=cli_line(" and ", lang).join(wants))
    client = (
        cli_line(
            ", client certificate {cert} (key {key})", lang, cert=files.client_cert, key=files.client_key
        )
        if files.client_cert
        else ""
    )
    return cli_line(
        "TLS: CA {ca}{client}{needs}", lang, ca=files.ca_cert, client=client, needs=needs if wants else ""
    )


@click.command()
@click.argument("bundle", nargs=-1, required=True)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port to listen on (0: a free one).",
)
@click.option(
    "--address",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. Off loopback (e.g. 0.0.0.0) anyone who reaches it reads the bundle, "
    "unauthenticated: a warning says so.",
)
@click.option(
    "--kubeconfig-out",
    metavar="PATH",
    help="Also write the kubeconfig to this file (never touches ~/.kube/config).",
)
@click.option(
    "--tls",
    is_flag=True,
    help="Serve HTTPS: a CA of its own and a certificate for 127.0.0.1 and localhost, written to "
    "--tls-dir (needs the openssl command); the kubeconfig carries the CA.",
)
@click.option(
    "--tls-dir",
    metavar="DIR",
    help="Where --tls writes ca.crt, server.crt/.key (and client.crt/.key) (default: a new private "
    "folder under $TMPDIR).",
)
@click.option(
    "--require-client-cert",
    is_flag=True,
    help="HTTPS only to clients with a certificate signed by its CA (implies --tls); it makes one, "
    "CN rbln-replay-user, and puts it in the kubeconfig.",
)
@click.option(
    "--require-token",
    metavar="TOKEN",
    envvar="KUBECTL_RBLN_SERVE_TOKEN",
    help="Answer 401 to a request without this bearer token (implies --tls; also: "
    "$KUBECTL_RBLN_SERVE_TOKEN); the kubeconfig carries it.",
)
@lang_option()
def serve(
    bundle: tuple[str, ...],
    port: int,
    address: str,
    kubeconfig_out: str | None,
    tls: bool,
    tls_dir: str | None,
    require_client_cert: bool,
    require_token: str | None,
    lang: str | None,
) -> int:
    """Serve BUNDLE (files, folders, or -) for kubectl and other tools; print a kubeconfig.

    \b
    kubectl rbln serve dump.json --kubeconfig-out /tmp/dump.kubeconfig &
    KUBECONFIG=/tmp/dump.kubeconfig kubectl get pods -A
    Writes are refused (405). Ctrl-C stops it. A bundle file that changes on disk is
    re-read on the next request (write the new one beside it, then mv it over).
    kubectl rbln serve dump.json --tls --require-client-cert --kubeconfig-out k.yaml   HTTPS
    """
    from kubectl_rbln.replay.server import ReplayServer, run  # noqa: PLC0415

    language = chosen_lang(lang)
    objects = load_objects(bundle)
    settings = None
    if tls or tls_dir or require_client_cert or require_token:
        from kubectl_rbln.replay.tls import TlsSettings, make_tls_files  # noqa: PLC0415

        files = make_tls_files(tls_dir, client_cert=require_client_cert)
        settings = TlsSettings(files, require_client_cert=require_client_cert, require_token=require_token)

    def ready(server: ReplayServer) -> None:
        """Print the kubeconfig and the startup lines; --kubeconfig-out is written first (a path that
        cannot be written fails before a line says to use it) but put in place last: a script that
        waits for that file (as tests and CI do) then finds every warning already written."""
        text = server.kubeconfig_yaml()
        publish = _write_private(kubeconfig_out, text) if kubeconfig_out else None
        sys.stdout.write(text)
        sys.stdout.flush()
        count = len(objects)
        for line in announce(
            server.listen_host, server.host, server.port, count, kubeconfig_out, settings, language
        ):
            click.echo(line, err=True)
        store = server.store
        click.echo(versions_line(store.server_version, store.server_version_known, language), err=True)
        sys.stderr.flush()
        if publish is not None:
            publish()

    gc.enable()  # main() turns it off for one-shot commands; a server runs until Ctrl-C
    run(objects, address, port, ready, reload_paths=bundle, tls=settings, lang=language)
    return 0


def _write_private(path: str, text: str) -> Callable[[], None]:
    """The kubeconfig written beside `path`, readable by its owner only (it may carry a token), and
    what renames it over `path` whole (a waiting reader never sees half a file); a path that cannot
    be written is the user's to fix (exit 2), not a traceback."""
    from kubectl_rbln.errors import InputError  # noqa: PLC0415

    partial = f"{path}.partial"

    def publish() -> None:
        try:
            os.replace(partial, path)
        except OSError as exc:
            raise InputError(f"--kubeconfig-out {path}: {exc.strerror or exc}") from None

    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise InputError(f"--kubeconfig-out {path}: {exc.strerror or exc}") from None
    return publish


def versions_line(kubernetes: str, from_bundle: bool, lang: str) -> str:
    """Which version is whose: /version answers the bundle's Kubernetes version, not the plugin's."""
    from kubectl_rbln import __version__  # noqa: PLC0415
    from kubectl_rbln.catalog import sentence  # noqa: PLC0415

    key = "serve-versions" if from_bundle else "serve-versions-default"
    return sentence(key, lang, kubernetes=kubernetes, plugin=f"v{__version__}")
