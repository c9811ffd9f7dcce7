"""Flags every command shares, parsed by the plugin itself.

kubectl never forwards its own flags to a plugin (`kubectl --context x rbln` is an
error), so `--kubeconfig`, `--context`, `-n` and friends must come after `rbln`
and are ours to parse (ecosystem-facts.md section 4.5).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import click

from kubectl_rbln import progress
from kubectl_rbln.cli.lang import LANG_FINDINGS_HELP, chosen_lang, lang_option
from kubectl_rbln.cluster.client_flags import ClientFlags
from kubectl_rbln.cluster.options import SourceOptions
from kubectl_rbln.domain import DEFAULT_RCT
from kubectl_rbln.render.width import DEFAULT_WIDTH, output_width

OUTPUT_FORMATS = ("table", "wide", "json", "yaml")
SEVERITIES = ("error", "warning", "info")


@dataclass(slots=True)
class Options:
    """What the shared flags say, handed to every command."""

    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None  # None: the context's namespace, else "default"
    all_namespaces: bool = False
    request_timeout: float = 30.0
    filenames: list[str] = field(default_factory=list)
    output: str = "table"
    jq: str | None = None
    jq_raw: bool = False  # -r: a string result of --jq printed as text, as `jq -r` prints it
    color: bool = True
    fail_on: str = "error"
    lang: str = "en"
    width: int = DEFAULT_WIDTH  # the columns the human views lay out for (render/width.py)
    contexts: tuple[str, ...] = ()  # `check --context A --context B`: every one named (fleet mode)
    all_contexts: bool = False  # `check --all-contexts`: every context of the kubeconfig
    flags: ClientFlags = field(default_factory=ClientFlags)  # --as, --token, --server, TLS, --user...

    @property
    def fleet(self) -> bool:
        """More than one cluster asked for: `check` runs them all and prints a summary first."""
        return self.all_contexts or len(self.contexts) > 1

    @property
    def offline(self) -> bool:
        return bool(self.filenames)

    @property
    def source(self) -> SourceOptions:
        """The flags the source layer reads (cluster/source.py takes no CLI type)."""
        return SourceOptions(
            kubeconfig=self.kubeconfig,
            context=self.context,
            namespace=self.namespace,
            all_namespaces=self.all_namespaces,
            request_timeout=self.request_timeout,
            filenames=tuple(self.filenames),
            flags=self.flags,
        )


# Go's time.ParseDuration units, which kubectl's --request-timeout takes
_DURATION_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "\u00b5s": 1e-6,
    "\u03bcs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")


def parse_timeout(value: str, flag: str = "--request-timeout") -> float:
    """A duration as kubectl's --request-timeout takes it (client-go tools/clientcmd/helpers.go
    `ParseTimeout`): a whole number of seconds (`30`), else Go's duration syntax (`30s`, `1m30s`,
    `1h2m3s`, `500ms`, `1.5h`); 0 means none. `flag` is the option the user typed, so the error names it."""
    text = value.strip()
    if text.isdigit():
        return float(text)
    position, total = 0, 0.0
    while text and position < len(text):
        match = _DURATION_PART.match(text, position)
        if match is None:
            break
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        position = match.end()
    else:
        if text:
            return total
    raise click.BadParameter(
        f"{value!r} is not a duration such as 30s, 1m30s or 500ms (or whole seconds)",
        param_hint=flag,
    )


def default_lang() -> str:
    """The locale's language (LC_ALL, LC_MESSAGES, LANG); a command asks `chosen_lang` (its --lang first)."""
    from kubectl_rbln.catalog import pick_language  # noqa: PLC0415

    return pick_language(None)


def color_enabled(no_color: bool) -> bool:
    """Colour only on a terminal, never with --no-color or NO_COLOR (no-color.org)."""
    import sys  # noqa: PLC0415

    return not no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()


def _stdout_width() -> int:
    import sys  # noqa: PLC0415

    return output_width(sys.stdout)


def common_options(
    *,
    all_namespaces: bool = True,
    output: bool = True,
    many_contexts: bool = False,
    lang_help: str = LANG_FINDINGS_HELP,
) -> Callable[..., Any]:
    """Add the shared flags to a command and pass an `Options` as its `opts` argument.

    `many_contexts` (check): `--context` is repeatable and `--all-contexts` exists; one context
    given is the usual single-cluster run. `lang_help`: what `--lang` says (a command without
    findings, such as `version`, speaks of its messages).
    """

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(**kwargs: Any) -> Any:
            given = kwargs.pop("context")
            contexts = tuple(given) if many_contexts else ((given,) if given else ())
            namespace = kwargs.pop("namespace")
            opts = Options(
                kubeconfig=kwargs.pop("kubeconfig"),
                context=contexts[0] if len(contexts) == 1 else None,
                contexts=contexts,
                all_contexts=kwargs.pop("all_contexts", False),
                # -A wins over -n, as in kubectl (its resource builder drops the namespace for AllNamespaces)
                namespace=None if kwargs.get("all_namespaces") else namespace,
                all_namespaces=kwargs.pop("all_namespaces", False),
                request_timeout=parse_timeout(kwargs.pop("request_timeout")),
                filenames=list(kwargs.pop("filenames")),
                output=kwargs.pop("output", "table"),
                jq=kwargs.pop("jq_expr", None),
                jq_raw=kwargs.pop("jq_raw", False),
                color=color_enabled(kwargs.pop("no_color")),
                fail_on=kwargs.pop("fail_on", "error"),
                lang=chosen_lang(kwargs.pop("lang")),
                width=_stdout_width(),
                flags=_client_flags(kwargs),
            )
            if opts.jq_raw and not opts.jq:
                raise click.UsageError("-r/--raw-output prints --jq results; give --jq EXPR with it")
            if opts.jq and opts.output in ("table", "wide"):
                opts.output = "json"
            if progress.wanted(opts.output):  # a progress line on a terminal (issue 16)
                progress.enable(opts.lang)
            else:
                progress.disable()
            return func(opts=opts, **kwargs)

        params = [
            click.option(
                "--kubeconfig", metavar="PATH", help="Kubeconfig file (default: $KUBECONFIG, ~/.kube/config)."
            ),
            click.option(
                "--context",
                metavar="NAME",
                multiple=many_contexts,
                help=(
                    "Kubeconfig context to use (repeatable: every cluster named, concurrently)."
                    if many_contexts
                    else "Kubeconfig context to use."
                ),
            ),
            *connection_options(),
            click.option(
                "-n",
                "--namespace",
                metavar="NS",
                help="Namespace (default: the context's, else default; with -f, the bundle's: "
                "one namespace is read, several are all read and said so).",
            ),
            click.option(
                "--request-timeout",
                default="30s",
                show_default=True,
                metavar="DURATION",
                help="Give up on a request the cluster does not answer (exit 3): 30, 30s, 1m30s, "
                "1h2m3s; 0 waits forever.",
            ),
            click.option(
                "-f",
                "--filename",
                "filenames",
                multiple=True,
                metavar="PATH",
                help="Read a bundle or kubectl -o json|yaml output (file, folder, - for stdin) "
                "instead of a cluster. Repeatable.",
            ),
            click.option("--no-color", is_flag=True, help="No colour (also: NO_COLOR set)."),
            lang_option(lang_help),
        ]
        if many_contexts:
            params.append(
                click.option(
                    "--all-contexts",
                    is_flag=True,
                    help="Every context of the kubeconfig, concurrently; exit code: the worst cluster's.",
                )
            )
        if all_namespaces:
            params.append(
                click.option("-A", "--all-namespaces", is_flag=True, help="Look in every namespace.")
            )
        if output:
            params += [
                click.option(
                    "-o",
                    "--output",
                    type=click.Choice(OUTPUT_FORMATS),
                    default="table",
                    show_default=True,
                    help="Output format.",
                ),
                click.option(
                    "--jq", "jq_expr", metavar="EXPR", help="Filter the JSON output with a jq expression."
                ),
                raw_output_option(),
                click.option(
                    "--fail-on",
                    type=click.Choice(SEVERITIES),
                    default="error",
                    show_default=True,
                    help="Exit 1 when a finding reaches this severity.",
                ),
            ]
        for param in reversed(params):
            wrapper = param(wrapper)
        return wrapper

    return decorate


def raw_output_option() -> Callable[..., Any]:
    """`-r` / `--raw-output`: jq's own flag for a string printed as text (`--jq '.pods[].name' -r`)."""
    return click.option(
        "-r",
        "--raw-output",
        "jq_raw",
        is_flag=True,
        help="With --jq: print a string result as plain text, without quotes (jq -r).",
    )


def connection_options() -> list[Callable[..., Any]]:
    """kubectl's connection flags (cli-runtime genericclioptions.ConfigFlags, same names and meaning);
    cluster/client_flags.py applies them as client-go does."""
    return [
        click.option("--cluster", "cluster_name", metavar="NAME", help="Kubeconfig cluster to use."),
        click.option("--user", "user_name", metavar="NAME", help="Kubeconfig user to use."),
        click.option("-s", "--server", metavar="URL", help="Address of the Kubernetes API server."),
        click.option("--token", metavar="TOKEN", help="Bearer token for authentication to the API server."),
        click.option(
            "--as", "impersonate", metavar="USER", help="Username to impersonate for the operation."
        ),
        click.option(
            "--as-group",
            "impersonate_groups",
            multiple=True,
            metavar="GROUP",
            help="Group to impersonate for the operation (repeatable).",
        ),
        click.option(
            "--as-uid", "impersonate_uid", metavar="UID", help="UID to impersonate for the operation."
        ),
        click.option(
            "--certificate-authority",
            metavar="PATH",
            help="Path to a cert file for the certificate authority.",
        ),
        click.option(
            "--client-certificate", metavar="PATH", help="Path to a client certificate file for TLS."
        ),
        click.option("--client-key", metavar="PATH", help="Path to a client key file for TLS."),
        click.option(
            "--insecure-skip-tls-verify",
            is_flag=True,
            help="Do not check the server's certificate (HTTPS connections become insecure).",
        ),
        click.option(
            "--tls-server-name",
            metavar="NAME",
            help="Server name for the server's certificate and SNI (default: the server's host name).",
        ),
    ]


def _client_flags(kwargs: dict[str, Any]) -> ClientFlags:
    """The connection flags, popped from a command's keyword arguments."""
    return ClientFlags(
        cluster=kwargs.pop("cluster_name", None),
        user=kwargs.pop("user_name", None),
        server=kwargs.pop("server", None),
        token=kwargs.pop("token", None),
        impersonate=kwargs.pop("impersonate", None),
        impersonate_groups=tuple(kwargs.pop("impersonate_groups", ())),
        impersonate_uid=kwargs.pop("impersonate_uid", None),
        certificate_authority=kwargs.pop("certificate_authority", None),
        client_certificate=kwargs.pop("client_certificate", None),
        client_key=kwargs.pop("client_key", None),
        insecure_skip_tls_verify=bool(kwargs.pop("insecure_skip_tls_verify", False)),
        tls_server_name=kwargs.pop("tls_server_name", None),
    )


def rct_option(help_text: str, *, default: str | None = DEFAULT_RCT) -> Callable[..., Any]:
    """`--rct NAME`: which ResourceClaimTemplate a command reads (the chart's default is npu-rdma)."""
    return click.option(
        "--rct", "rct", default=default, show_default=default is not None, metavar="NAME", help=help_text
    )


def simulation_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """`--k8s-version` and `--feature-gates`: which allocator the simulation follows.

    The values are checked where they are used (diagnose/features.py), so that every command
    rejects the same texts with the same message (exit 2).
    """
    func = click.option(
        "--feature-gates",
        metavar="GATE=BOOL,...",
        help="Scheduler gates to simulate, e.g. DRADeviceTaints=false (default: the version's, "
        "corrected by what stored objects prove).",
    )(func)
    return click.option(
        "--k8s-version",
        metavar="1.3X",
        help="Kubernetes minor whose allocator to simulate, 1.32 to 1.37 (default: the cluster's, "
        "else the newest kubelet's, else 1.37; outside the range: the nearest, with a warning).",
    )(func)


def label_selector(selector: str | None) -> list[Any] | None:
    """`-l` as kubectl parses it (one selector module, shared with the replay server); exit 2 if bad."""
    if not selector:
        return None
    from kubectl_rbln.errors import InputError  # noqa: PLC0415
    from kubectl_rbln.selectors import SelectorError, parse_label_selector  # noqa: PLC0415

    try:
        return list(parse_label_selector(selector))
    except SelectorError as exc:
        raise InputError(f"-l {selector}: {exc}") from None
