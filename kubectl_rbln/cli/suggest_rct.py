"""`kubectl rbln suggest-rct`: flags to `app.suggest_rct`; YAML on stdout, the reasoning on stderr.

By default stdout carries nothing but the ResourceClaimTemplate, so `suggest-rct > fixed.yaml` and
`suggest-rct | kubectl apply -f -` work; everything a person should read goes to stderr. `-o json|yaml`
(or `--jq`) prints instead the `SuggestRctReport` document, the RCT embedded as `template`, with the
reasoning as data, and nothing but warnings on stderr. The shared flags leave `-o` out here (the default
is not a table), so this command declares its own `-o` and `--jq` under other parameter names, as
`topo` does: the shared wrapper pops `output` and `jq_expr`.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from kubectl_rbln.cli.lang import warner
from kubectl_rbln.cli.options import Options, common_options, rct_option, simulation_options
from kubectl_rbln.domain import CHART_RECIPES  # noqa: E402
from kubectl_rbln.recipes import API_VERSIONS  # noqa: E402

RECIPE_CHOICES = CHART_RECIPES
DOCUMENT_FORMATS = ("json", "yaml")


@click.command(name="suggest-rct")
@common_options(all_namespaces=False, output=False)
@rct_option("The RCT to replace: its name and NPU count are kept.")
@click.option(
    "-o",
    "--output",
    "fmt",
    type=click.Choice(DOCUMENT_FORMATS),
    default=None,
    help="Print the SuggestRctReport document (the RCT in `template`) instead of the RCT's YAML; "
    "with --print-recipe, the RCT in this format.",
)
@click.option("--jq", "jq_filter", metavar="EXPR", help="Filter the JSON document with a jq expression.")
@click.option(
    "--pod", metavar="POD", help="Verify with this Pod (default: the Pending Pods that use the RCT)."
)
@click.option(
    "--recipe",
    type=click.Choice(RECIPE_CHOICES),
    help="Only this recipe (npu-only is tried only on request or for an RCT without NICs).",
)
@click.option(
    "--print-recipe",
    is_flag=True,
    help="Print the --recipe as written (named --rct, in -n), without reading the cluster.",
)
@click.option(
    "--api-version",
    type=click.Choice(API_VERSIONS),
    default="v1",
    show_default=True,
    help="With --print-recipe: the resource.k8s.io version to write (the one the cluster serves).",
)
@click.option(
    "--claim",
    "claim",
    metavar="NAME",
    help="Suggest the ResourceClaim NAME (one that Pods name directly) instead of an RCT.",
)
@click.option(
    "--values", "values_file", metavar="FILE", help="Cross-check a chart values file against the RCT."
)
@simulation_options
def suggest_rct(
    opts: Options,
    rct: str,
    fmt: str | None,
    jq_filter: str | None,
    pod: str | None,
    recipe: str | None,
    print_recipe: bool,
    api_version: str,
    values_file: str | None,
    claim: str | None,
    k8s_version: str | None,
    feature_gates: str | None,
) -> int:
    """Print a ResourceClaimTemplate the cluster can satisfy, proven by the `why` simulation.

    \b
    kubectl rbln suggest-rct -n serving > npu-rdma.yaml
    kubectl -n serving delete resourceclaimtemplate npu-rdma
    kubectl -n serving apply -f npu-rdma.yaml
    kubectl rbln suggest-rct -n serving --values my-values.yaml
    kubectl rbln suggest-rct -n serving --recipe numa-unaligned --print-recipe > npu-rdma.yaml
    kubectl rbln suggest-rct -n serving -o json --jq '.attempts[] | {recipe, fitsOn}'
    """
    document_format = fmt or ("json" if jq_filter else None)
    if print_recipe:
        return _print_recipe(recipe, rct, opts.namespace, api_version, document_format, jq_filter)
    from kubectl_rbln.app.suggest_rct import SuggestRequest, suggest_rct  # noqa: PLC0415 - heavy imports
    from kubectl_rbln.app.why import select_pods  # noqa: PLC0415
    from kubectl_rbln.cluster.read_gaps import NEEDS_DEVICES, degraded_exit  # noqa: PLC0415
    from kubectl_rbln.cluster.source import default_namespace, load_snapshot  # noqa: PLC0415
    from kubectl_rbln.render.output import emit  # noqa: PLC0415
    from kubectl_rbln.render.suggest_text import render_suggest_explanation, render_suggest_yaml  # noqa: PLC0415

    values = _load_values(values_file) if values_file else None
    snapshot, collected = load_snapshot(opts.source, warner(opts.lang), needs=NEEDS_DEVICES)
    namespace = default_namespace(opts.source, collected, snapshot, warner(opts.lang))
    target = select_pods(snapshot, [pod], namespace)[0] if pod else None
    request = SuggestRequest(
        namespace,
        claim or rct,
        target,
        recipe,
        k8s_version,
        feature_gates,
        values,
        values_file,
        claim is not None,
    )
    report = suggest_rct(snapshot, request)
    if document_format is None:  # the default, unchanged: the reasoning on stderr, the RCT on stdout
        from kubectl_rbln.render.width import output_width  # noqa: PLC0415

        width = output_width(sys.stderr)  # the explanation's terminal: stdout is often a file
        click.echo(render_suggest_explanation(report, opts.lang, width), err=True, nl=False)
    emit(
        report,
        output=document_format or "table",
        jq_expr=jq_filter,
        lang=opts.lang,
        text=lambda: render_suggest_yaml(report),
    )
    return degraded_exit(snapshot, report.exit_code)


def _print_recipe(
    recipe: str | None,
    rct: str,
    namespace: str | None,
    api_version: str,
    document_format: str | None,
    jq_filter: str | None,
) -> int:
    """The recipe the fixes apply, as a file the user can keep: no cluster read, no adaptation."""
    import yaml  # noqa: PLC0415

    from kubectl_rbln.recipes import recipe_devices, template_object  # noqa: PLC0415
    from kubectl_rbln.render.output import emit_document  # noqa: PLC0415

    if recipe is None:
        raise click.UsageError("--print-recipe needs --recipe (" + ", ".join(RECIPE_CHOICES) + ")")
    obj = template_object(rct, namespace or "", recipe_devices(recipe), api_version)
    if not namespace:
        del obj["metadata"]["namespace"]
    if document_format is not None:  # the RCT itself (a Kubernetes object), as kubectl -o json prints one
        emit_document(obj, document_format, jq_filter)
        return 0
    click.echo(yaml.safe_dump(obj, sort_keys=False, width=10_000), nl=False)
    return 0


def _load_values(path: str) -> dict[str, Any]:
    import yaml  # noqa: PLC0415

    from kubectl_rbln.errors import InputError  # noqa: PLC0415

    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle) or {}
    except OSError as exc:
        raise InputError(f"--values {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise InputError(f"--values {path}: not YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise InputError(f"--values {path}: expected a mapping of chart values")
    return data
