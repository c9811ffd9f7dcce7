"""kubectl's spellings the plugin takes as kubectl does: durations, `-o=json`, boolean `=true`."""

from __future__ import annotations

import click
import pytest

from kubectl_rbln.cli.argv import kubectl_style
from kubectl_rbln.cli.options import parse_timeout
from kubectl_rbln.cluster.client_flags import ClientFlags, apply_to_entries, request_headers


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30", 30.0), ("0", 0.0), ("30s", 30.0), ("1m30s", 90.0), ("1h2m3s", 3723.0), ("500ms", 0.5),
     ("1.5h", 5400.0), ("2m0.5s", 120.5), ("90us", 0.00009)],
)  # fmt: skip
def test_request_timeout_is_kubectls(text: str, seconds: float) -> None:
    """client-go tools/clientcmd/helpers.go ParseTimeout: whole seconds, else Go's ParseDuration."""
    assert parse_timeout(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["1.5", "", "-1s", "1m30", "s", "1d", "1 m"])
def test_request_timeout_refuses_what_kubectl_refuses(text: str) -> None:
    with pytest.raises(click.BadParameter, match="is not a duration"):
        parse_timeout(text)


def test_kubectl_style_arguments() -> None:
    assert kubectl_style(["-o=json", "-l=app=x,tier in (a)", "-n", "ns"]) == [
        "-o", "json", "-l", "app=x,tier in (a)", "-n", "ns",
    ]  # fmt: skip
    assert kubectl_style(["--insecure-skip-tls-verify=true", "--all-namespaces=false"]) == [
        "--insecure-skip-tls-verify"
    ]
    assert kubectl_style(["--", "-o=json"]) == ["--", "-o=json"]  # after --, nothing is touched
    assert kubectl_style(["--as=jane", "--jq=.x"]) == ["--as=jane", "--jq=.x"]  # click reads those


def test_flags_override_the_kubeconfig_entries_as_client_go_does() -> None:
    """tools/clientcmd/client_config.go getCluster/getAuthInfo: --server clears tls-server-name, a CA or
    --insecure-skip-tls-verify replaces the CA data, --token drops the exec plugin."""
    cluster = {"server": "https://a", "certificate-authority-data": "QUJD", "tls-server-name": "a.example"}
    user = {"exec": {"command": "aws"}, "client-certificate-data": "eA=="}
    flags = ClientFlags(
        server="https://b", insecure_skip_tls_verify=True, token="t0ken", client_certificate="/c"
    )
    apply_to_entries(cluster, user, flags)
    assert cluster == {"server": "https://b", "insecure-skip-tls-verify": True}
    assert user == {"client-certificate": "/c", "token": "t0ken"}


def test_impersonation_headers_one_per_group() -> None:
    headers = request_headers(
        ClientFlags(impersonate="jane", impersonate_groups=("a", "b"), impersonate_uid="7")
    )
    assert headers[0][0] == "User-Agent" and headers[0][1].startswith("kubectl-rbln/v")
    assert headers[1:] == [
        ("Impersonate-User", "jane"),
        ("Impersonate-Uid", "7"),
        ("Impersonate-Group", "a"),
        ("Impersonate-Group", "b"),
    ]
