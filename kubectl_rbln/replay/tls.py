"""HTTPS for the replay server: a self-signed CA it writes out, a server certificate for 127.0.0.1 and
localhost, and (when asked) a client certificate the server requires.

Why: a live cluster speaks TLS, and what the plugin does with `--certificate-authority`,
`--insecure-skip-tls-verify`, `--tls-server-name`, `--client-certificate` and a Pod's service-account
CA can only be shown against a server that checks them. The certificates are made by the `openssl`
command (present wherever kubectl's users run `serve`: Linux, macOS), so the plugin needs no
cryptography package; `serve --tls` without it is one clear line (exit 2).

The server records what each handshake said (SNI name, the client certificate's CN and O) for the
audit (replay/audit.py); the client certificate names a user as the API server reads one: CN the
user, each O a group (k8s.io/apiserver pkg/authentication/request/x509 `CommonNameUserConversion`).
"""

from __future__ import annotations

import os
import secrets
import shutil
import ssl
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any

from kubectl_rbln.errors import InputError

DAYS = 30
SERVER_NAMES = ("127.0.0.1", "localhost")
CLIENT_USER = "rbln-replay-user"
CLIENT_GROUPS = ("rbln-replay",)


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """The PEM files one `serve --tls` wrote (keys mode 0600)."""

    directory: str
    ca_cert: str
    ca_key: str
    server_cert: str
    server_key: str
    client_cert: str | None = None
    client_key: str | None = None


@dataclass(frozen=True, slots=True)
class TlsSettings:
    """HTTPS and who may ask: a client certificate signed by the CA, a bearer token, either or both."""

    files: TlsFiles
    require_client_cert: bool = False
    require_token: str | None = None

    def server_context(self) -> ssl.SSLContext:
        """The server's context: TLS 1.2+, its certificate, and the CA for client certificates (asked
        for always, so that one presented is recorded; required with `require_client_cert`)."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.files.server_cert, self.files.server_key)
        context.load_verify_locations(self.files.ca_cert)
        context.verify_mode = ssl.CERT_REQUIRED if self.require_client_cert else ssl.CERT_OPTIONAL
        context.sni_callback = _remember_sni
        return context


def _remember_sni(sock: Any, server_name: str | None, _context: ssl.SSLContext) -> None:
    """The name the client asked for (its SNI, --tls-server-name), kept on the socket for the audit."""
    sock.rbln_sni = server_name or ""


def handshake_names(sock: Any) -> tuple[str, str, tuple[str, ...]]:
    """(SNI name, client certificate CN, its O groups) of a finished handshake; "" where none."""
    sni = str(getattr(sock, "rbln_sni", "") or "")
    try:
        peer = sock.getpeercert() or {}
    except (ValueError, OSError):
        peer = {}
    cn, groups = "", []
    for rdn in peer.get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                cn = str(value)
            elif key == "organizationName":
                groups.append(str(value))
    return sni, cn, tuple(groups)


def make_tls_files(directory: str | None = None, *, client_cert: bool = False) -> TlsFiles:
    """A CA, a server certificate for 127.0.0.1 and localhost, and with `client_cert` a client one, in
    `directory` (default: a new private folder under $TMPDIR)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise InputError("serve --tls needs the openssl command to make its certificates; install openssl")
    folder = directory or tempfile.mkdtemp(prefix="kubectl-rbln-serve-tls-")
    os.makedirs(folder, mode=0o700, exist_ok=True)

    def path(name: str) -> str:
        return os.path.join(folder, name)

    _run(
        openssl,
        ["req", "-x509", *_new_key(path("ca.key")), "-out", path("ca.crt"), "-days", str(DAYS)]
        + ["-subj", "/CN=kubectl-rbln-replay-ca", "-addext", "basicConstraints=critical,CA:TRUE"]
        + ["-addext", "keyUsage=critical,keyCertSign,cRLSign"],
    )
    names = ",".join(f"IP:{n}" if n[0].isdigit() else f"DNS:{n}" for n in SERVER_NAMES)
    _sign(
        openssl, folder, "server", "/CN=127.0.0.1", f"subjectAltName={names}\nextendedKeyUsage=serverAuth\n"
    )
    files = TlsFiles(folder, path("ca.crt"), path("ca.key"), path("server.crt"), path("server.key"))
    if client_cert:
        subject = f"/CN={CLIENT_USER}" + "".join(f"/O={group}" for group in CLIENT_GROUPS)
        _sign(openssl, folder, "client", subject, "extendedKeyUsage=clientAuth\n")
        files = TlsFiles(
            **{**_fields(files), "client_cert": path("client.crt"), "client_key": path("client.key")}
        )
    return files


def sign_client_cert(files: TlsFiles, name: str, subject: str) -> tuple[str, str]:
    """Another client certificate signed by the same CA (`/CN=jane/O=dev`): (cert, key) paths. For tests
    and for handing several identities out of one `serve`."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise InputError("signing a client certificate needs the openssl command")
    _sign(openssl, files.directory, name, subject, "extendedKeyUsage=clientAuth\n")
    return os.path.join(files.directory, f"{name}.crt"), os.path.join(files.directory, f"{name}.key")


def _fields(files: TlsFiles) -> dict[str, Any]:
    return {name: getattr(files, name) for name in TlsFiles.__slots__}


def _new_key(key_path: str) -> list[str]:
    return ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key_path]


def _sign(openssl: str, folder: str, name: str, subject: str, extensions: str) -> None:
    """`name`.key and `name`.crt: a new key, its request, signed by the folder's CA with `extensions`."""
    key, csr, crt, ext = (os.path.join(folder, f"{name}.{suffix}") for suffix in ("key", "csr", "crt", "ext"))
    with open(ext, "w", encoding="utf-8") as handle:
        handle.write("basicConstraints=CA:FALSE\n" + extensions)
    _run(openssl, ["req", "-new", *_new_key(key), "-out", csr, "-subj", subject])
    serial = "0x" + secrets.token_hex(16)
    _run(
        openssl,
        ["x509", "-req", "-in", csr, "-CA", os.path.join(folder, "ca.crt")]
        + ["-CAkey", os.path.join(folder, "ca.key"), "-set_serial", serial, "-out", crt]
        + ["-days", str(DAYS), "-extfile", ext],
    )
    for leftover in (csr, ext):
        os.unlink(leftover)


def _run(openssl: str, args: list[str]) -> None:
    result = subprocess.run([openssl, *args], capture_output=True, text=True, check=False, timeout=60)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["failed"])[-1]
        raise InputError(f"openssl {args[0]} could not make a certificate: {last}")
    for produced in (a for a in args if a.endswith(".key")):
        if os.path.exists(produced):
            os.chmod(produced, 0o600)
