"""`kubectl rbln suggest-rct`: flags to `remedy.suggest`; YAML on stdout, the reasoning on stderr.

stdout carries nothing but the ResourceClaimTemplate, so `suggest-rct > fixed.yaml` and
`suggest-rct | kubectl apply -f -` work; everything a person should read goes to stderr.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from kubectl_rbln.cli.options import Options, common_options, rct_option, simulation_options
from kubectl_rbln.domain import CHART_RECIPES, RDMA_ATTR
from kubectl_rbln.errors import EXIT_FINDINGS, EXIT_OK

RECIPE_CHOICES = CHART_RECIPES


@click.command(name="suggest-rct")
@common_options(all_namespaces=False, output=False)
@rct_option("The RCT to replace: its name and NPU count are kept.")
@click.option(
    "--pod", metavar="POD", help="Verify with this Pod (default: the Pending Pods that use the RCT)."
)
@click.option(
    "--recipe",
    type=click.Choice(RECIPE_CHOICES),
    help="Only this recipe (npu-only is tried only on request or for an RCT without NICs).",
)
@click.option(
    "--values", "values_file", metavar="FILE", help="Cross-check a chart values file against the RCT."
)
@simulation_options
def suggest_rct(
    opts: Options,
    rct: str,
    pod: str | None,
    recipe: str | None,
    values_file: str | None,
    k8s_version: str | None,
    feature_gates: str | None,
) -> int:
    """Print a ResourceClaimTemplate the cluster can satisfy, proven by the `why` simulation.

    \b
    kubectl rbln suggest-rct -n serving > npu-rdma.yaml
    kubectl -n serving delete resourceclaimtemplate npu-rdma
    kubectl -n serving apply -f npu-rdma.yaml
    kubectl rbln suggest-rct -n serving --values my-values.yaml
    """
    from kubectl_rbln.cli.why_run import select_pods  # noqa: PLC0415 - heavy imports only when running
    from kubectl_rbln.cluster.source import default_namespace, load_snapshot  # noqa: PLC0415
    from kubectl_rbln.diagnose.features import allocator_features, choose_features  # noqa: PLC0415
    from kubectl_rbln.remedy.suggest import suggest  # noqa: PLC0415

    snapshot, collected = load_snapshot(opts.source)
    namespace = default_namespace(opts.source, collected)
    target = select_pods(snapshot, [pod], namespace)[0] if pod else None
    choice = choose_features(snapshot, k8s_version, feature_gates)
    result = suggest(
        snapshot, namespace, rct, features=allocator_features(choice), pod=target, only=recipe, lang=opts.lang
    )
    explain(result, choice.describe())
    code = EXIT_OK if result.template is not None else EXIT_FINDINGS
    if result.template is not None:
        sys.stdout.write(dump_yaml(result.template))
    if values_file:
        code = max(code, _check_values(values_file, result, snapshot, namespace))
    return code


def dump_yaml(obj: dict[str, Any]) -> str:
    import yaml  # noqa: PLC0415

    return yaml.safe_dump(obj, sort_keys=False, width=10_000)


def say(line: str = "") -> None:
    click.echo(line, err=True)


def explain(result: Any, assumptions: dict[str, Any]) -> None:
    """Why this recipe, what it gives up, how to apply it and the chart values to set (all on stderr)."""
    from kubectl_rbln.remedy.recipes import chart_values  # noqa: PLC0415

    current = result.current
    ns, name = current.namespace, current.name
    where = f"{ns}/{name}" + (
        "" if current.exists else " (not in the cluster: the reference recipe's counts)"
    )
    if result.chosen is None:
        say(f"suggest-rct: no ResourceClaimTemplate can fix this cluster for {where}.")
        for reason in result.no_fix:
            say(f"  - {reason}")
        _assumptions(assumptions)
        return
    chosen = result.chosen.candidate
    say(f"suggest-rct: {chosen.recipe} for {where}, as resource.k8s.io/{result.api_version}")
    for note in chosen.adaptations:
        say(f"  adapted: {note}")
    for attempt in result.attempts[:-1]:
        say(f"  not {attempt.candidate.label}: {'; '.join(attempt.blockers) or 'does not fit'}")
    for line in gives_up(chosen.recipe, chosen.adaptations):
        say(f"  gives up: {line}")
    say(
        f"  verified: the simulation of `why --with-rct` fits {', '.join(result.probes)} "
        f"on {', '.join(result.chosen.fits_on)}"
    )
    _assumptions(assumptions)
    say("")
    say("Kubernetes rejects an apply that changes an existing RCT's spec, so save, delete, then apply:")
    say(f"  kubectl rbln suggest-rct -n {ns} --rct {name} > {name}.yaml")
    if current.exists:
        say(f"  kubectl -n {ns} delete resourceclaimtemplate {name}")
    say(f"  kubectl -n {ns} apply -f {name}.yaml")
    values = chart_values(chosen.recipe, name, current.npu_count)
    sets = [f"devices.npu.count={current.npu_count}", f"devices.claimTemplateName={name}"]
    if "rdma" in values["devices"]:
        sets.append("devices.rdma.enabled=false")
    say("Chart values: " + " ".join(f"--set {s}" for s in sets))


def gives_up(recipe: str, adaptations: tuple[str, ...]) -> list[str]:
    lines = []
    if recipe == "numa-unaligned":
        lines.append(
            "NUMA alignment: NPUs and NICs may come from different NUMA nodes, so KV transfer may cross "
            "NUMA nodes; and the two NICs may share one physical NIC (no distinct pcieRoot)"
        )
    if recipe == "npu-only":
        lines.append("RDMA NICs: no KV transfer over RDMA; set devices.rdma.enabled=false (an AGG install)")
    if any("without the pciSubsystem" in a for a in adaptations):
        lines.append(f"the NIC model pin: any NIC with {RDMA_ATTR}=true matches")
    return lines or ["nothing: the reference configuration's alignment is kept"]


def _assumptions(assumptions: dict[str, Any]) -> None:
    gates = assumptions.get("gates", {})
    consumable = "on" if gates.get("consumable_capacity") else "off"
    why = (assumptions.get("why") or {}).get("consumable_capacity", "the default")
    say(
        f"  simulated: Kubernetes {assumptions.get('kubernetesMinor')}, "
        f"DRAConsumableCapacity {consumable} ({why}); --k8s-version and --feature-gates override"
    )


def _check_values(path: str, result: Any, snapshot: Any, namespace: str) -> int:
    from kubectl_rbln.remedy.chart_values import check_values  # noqa: PLC0415

    values = _load_values(path)
    current = result.current
    has_nic = result.chosen.candidate.recipe != "npu-only" if result.chosen else current.has_nic
    templates = sorted(t.name for t in snapshot.templates if t.namespace == namespace)
    checks = check_values(
        values,
        rct_name=current.name,
        npu_count=current.npu_count,
        has_nic=has_nic,
        templates_in_namespace=templates,
    )
    say("")
    say(f"Chart values ({path}):")
    for check in checks:
        mark = "ok  " if check.ok else ("FAIL" if check.severity == "error" else "warn")
        say(f"  {mark} {check.message}")
    return EXIT_FINDINGS if any(not c.ok and c.severity == "error" for c in checks) else EXIT_OK


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
