"""`serve --address`: the true address is printed, and anything off loopback is warned about (issue 13).

Only loopback addresses are bound here (127.0.0.0/8). The non-loopback path is tested through the
functions that decide and word it, without binding.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import yaml

from kubectl_rbln.cli.serve import announce, exposure_warning
from kubectl_rbln.replay.http import ReplayHTTPServer
from kubectl_rbln.replay.server import ReplayServer
from tests.conftest import DATA

BASIC = DATA / "replay-basic.json"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "127.9.9.9", "::1", "localhost"])
def test_loopback_is_not_warned_about(host: str) -> None:
    assert exposure_warning(host, 8001) is None


def test_every_interface_is_warned_about() -> None:
    warning = exposure_warning("0.0.0.0", 8001)
    assert warning == (
        "warning: serving on every interface (0.0.0.0:8001) without authentication: anyone who can reach "
        "this machine on port 8001 can read the whole bundle (read-only: writes are refused)"
    )
    assert exposure_warning("::", 8001) is not None
    assert exposure_warning("", 8001) is not None


def test_one_non_loopback_address_is_warned_about_by_name() -> None:
    warning = exposure_warning("192.0.2.10", 8001)
    assert warning is not None
    assert "on 192.0.2.10:8001 without authentication" in warning
    assert "read-only" in warning
    assert exposure_warning("build-host.example", 8001) is not None


@pytest.mark.parametrize(
    ("bound", "client"),
    [
        ("0.0.0.0", "127.0.0.1"),
        ("", "127.0.0.1"),
        ("::", "::1"),
        ("192.0.2.10", "192.0.2.10"),
        ("127.0.0.2", "127.0.0.2"),
    ],
)
def test_the_kubeconfig_points_at_a_reachable_address(bound: str, client: str) -> None:
    """The server's kubeconfig host for what it bound (the property alone: nothing is bound here)."""
    assert ReplayHTTPServer.public_host.fget(SimpleNamespace(server_address=(bound, 8001))) == client


def test_announce_says_the_true_address_and_where_the_kubeconfig_points() -> None:
    lines = announce("0.0.0.0", "127.0.0.1", 8001, 19, None)
    assert lines[0].startswith("warning: serving on every interface (0.0.0.0:8001) without authentication")
    assert lines[1] == (
        "serving 19 objects at http://0.0.0.0:8001 (every interface, read-only); the kubeconfig uses "
        "http://127.0.0.1:8001; use KUBECONFIG=the kubeconfig above, saved to a file; Ctrl-C stops"
    )
    assert announce("::", "::1", 8001, 1, "/tmp/k")[1].startswith(
        "serving 1 object at http://[::]:8001 (every"
    )


def test_announce_on_loopback_is_one_line() -> None:
    assert announce("127.0.0.1", "127.0.0.1", 8001, 19, "/tmp/k") == [
        "serving 19 objects at http://127.0.0.1:8001 (read-only); use KUBECONFIG=/tmp/k; Ctrl-C stops"
    ]


def test_serve_on_a_second_loopback_address_prints_it(inprocess_rbln, monkeypatch, tmp_path) -> None:
    """Through the CLI: binds 127.0.0.2 (loopback), prints that address, no warning, then stops."""
    monkeypatch.setattr(ReplayServer, "serve_forever", lambda self: None)
    out_path = tmp_path / "k.yaml"
    code, out, err = inprocess_rbln(
        "serve", str(BASIC), "--address", "127.0.0.2", "--kubeconfig-out", str(out_path)
    )
    assert code == 0
    server = yaml.safe_load(out)["clusters"][0]["cluster"]["server"]
    assert server.startswith("http://127.0.0.2:")
    assert yaml.safe_load(out_path.read_text()) == yaml.safe_load(out)
    assert "warning" not in err
    assert err.startswith("serving ") and f"at {server} (read-only)" in err
