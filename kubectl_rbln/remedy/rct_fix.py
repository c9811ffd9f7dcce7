"""The one remedy for "the RCT must change": the proven RCT put in place, then every owner re-created.

Why: the same root cause used to get four different fixes from why, check, attrs and suggest-rct,
some with an edit left as a comment and a placeholder file name. Every command now prints these
lines, built once from the cluster:

1. write the RCT the simulation proves (`suggest-rct --recipe R`) and keep the live one beside it;
2. preview: the difference between the two files;
3. change, one `&&` chain: the written file must parse, then the RCT is deleted and created from it
   (an RCT's spec cannot change in place), then every owner whose Pods hold claims of the old RCT
   is re-created (a claim never follows its RCT).

The lines are handed to the catalog as list values (`{rct_fix}`, `{rct_fix_numa_unaligned}`,
`{recreate}`), so the words around them stay in the catalog, and `catalog/fix.py` reads them into
steps like any other fix.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from kubectl_rbln.catalog import Names, Phrase, Said
from kubectl_rbln.diagnose.context import restart_target
from kubectl_rbln.diagnose.edits import Edit
from kubectl_rbln.dra.model import Pod, Snapshot

TERMINAL = ("Succeeded", "Failed")


@dataclass(frozen=True, slots=True)
class Proof:
    """What the simulation proved for one recipe: the recipe (and how it was adapted), where it fits."""

    recipe: str
    label: str | Phrase  # the recipe, or a Phrase with how it was adapted (said in the reader's language)
    nodes: tuple[str, ...]
    gates: str = ""  # assumed on (`DRAConsumableCapacity=true`): the fix turns them on first


def q(value: str) -> str:
    """A cluster value as one shell word (a name with a space or `$` cannot run anything)."""
    return shlex.quote(str(value))


def holds_claims_of(pod: Pod, rct: str) -> bool:
    return any(ref.resource_claim_template_name == rct for ref in pod.resource_claims)


def names_claim(pod: Pod, claim: str) -> bool:
    return any(ref.resource_claim_name == claim for ref in pod.resource_claims)


def owners(
    snapshot: Snapshot, namespace: str, rct: str, *, claim: bool = False
) -> tuple[list[str], list[str]]:
    """(`kind/name` to roll out, bare Pods to delete) for every live Pod of `namespace` that uses `rct`
    (`claim`: that names the ResourceClaim `rct` itself).

    Every owner of the group, not the first Pod's: prefill and decode are two Deployments."""
    uses = names_claim if claim else holds_claims_of
    rollouts: set[str] = set()
    bare: set[str] = set()
    for pod in snapshot.pods:
        if pod.namespace != namespace or pod.phase in TERMINAL or not uses(pod, rct):
            continue
        target = restart_target(pod)
        if target:
            rollouts.add(target)
        else:
            bare.add(pod.name)
    return sorted(rollouts), sorted(bare)


def recreate_commands(namespace: str, rollouts: Iterable[str], bare: Iterable[str]) -> list[str]:
    """`rollout restart` of every owner at once, and `delete pod` of Pods no controller re-creates."""
    rollouts, bare = list(rollouts), list(bare)
    out = []
    if rollouts:
        out.append(f"kubectl -n {q(namespace)} rollout restart " + " ".join(q(r) for r in rollouts))
    if bare:
        out.append(f"kubectl -n {q(namespace)} delete pod " + " ".join(q(p) for p in bare))
    return out


def suggested_file(rct: str) -> str:
    return f"{rct}.suggested.yaml"


def live_file(rct: str) -> str:
    return f"{rct}.live.yaml"


def gates_flag(gates: str) -> str:
    """` --feature-gates G=true`: suggest-rct simulates the gates the fix turns on, as the proof did."""
    return f" --feature-gates {q(gates)}" if gates else ""


def rct_fix_lines(
    snapshot: Snapshot,
    namespace: str,
    rct: str,
    proof: Proof | None,
    recipe: str | None = None,
    gates: str = "",
) -> list[str]:
    """The lines of the remedy, or (nothing proved) the read-only command that shows why not."""
    ns, name = q(namespace), q(rct)
    ask = f"kubectl rbln suggest-rct -n {ns} --rct {name}" + (f" --recipe {q(recipe)}" if recipe else "")
    ask += gates_flag(gates)
    if proof is None:
        if recipe is None:
            return [Said(Phrase("fix-note-rct-unproven-any", {"rct": rct})), ask]
        return [Said(Phrase("fix-note-rct-unproven", {"rct": rct, "recipe": recipe})), ask]
    exists = snapshot.template(namespace, rct) is not None
    suggested, live = q(suggested_file(rct)), q(live_file(rct))
    write = f"kubectl rbln suggest-rct -n {ns} --rct {name} --recipe {q(proof.recipe)}"
    write += f"{gates_flag(proof.gates)} > {suggested}"
    rollouts, bare = owners(snapshot, namespace, rct)
    proven = Said(Phrase("fix-note-rct-proven", {"label": proof.label, "nodes": Names(list(proof.nodes))}))
    lines: list[str] = [proven]
    if exists:
        lines += [
            f"{write} && \\\n  kubectl -n {ns} get resourceclaimtemplate {name} -o yaml > {live}",
            f"diff -u {live} {suggested}",
            Said(Phrase("fix-note-rct-replace", {"rct": rct})),
            f"kubectl create --dry-run=client -f {suggested} -o name >/dev/null && \\\n"
            f"  kubectl -n {ns} delete resourceclaimtemplate {name}",
        ]
    else:
        lines += [write, f"cat {suggested}"]
    lines.append(f"kubectl -n {ns} create -f {suggested}")
    lines += recreate_commands(namespace, rollouts, bare) if exists else []
    return lines


def recreate_lines(snapshot: Snapshot, namespace: str, rct: str, *, claim: bool = False) -> list[str]:
    """Only the re-creation (the RCT is already right, the Pods hold claims made from an older one)."""
    rollouts, bare = owners(snapshot, namespace, rct, claim=claim)
    return recreate_commands(namespace, rollouts, bare)


POD_BOOKKEEPING = (
    ".metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp, .spec.nodeName, .status"
)


@dataclass(frozen=True, slots=True)
class Release:
    """How the Pods that name a claim let it go: a rollout cannot (a Deployment with maxUnavailable 0
    keeps its old Pod, and so the claim, until the new Pod runs, which waits for the claim). So every
    such Pod is deleted (its controller creates it again, and the new Pod waits for the new claim), and
    a bare Pod is saved first and created again after the claim."""

    save: list[str]
    delete: list[str]
    restore: list[str]


def claim_release(snapshot: Snapshot, namespace: str, claim: str) -> Release:
    ns = q(namespace)
    pods = sorted(
        (
            p
            for p in snapshot.pods
            if p.namespace == namespace and p.phase not in TERMINAL and names_claim(p, claim)
        ),
        key=lambda p: p.name,
    )
    bare = [p.name for p in pods if not p.owner_name]
    strip = q(f"del({POD_BOOKKEEPING})")
    save = [
        f"kubectl -n {ns} get pod {q(name)} -o json | jq {strip} > {q(name + '.pod.json')}" for name in bare
    ]
    delete = [f"kubectl -n {ns} delete pod " + " ".join(q(p.name) for p in pods)] if pods else []
    restore = [f"kubectl -n {ns} create -f {q(name + '.pod.json')}" for name in bare]
    return Release(save, delete, restore)


def template_patch_lines(
    snapshot: Snapshot, namespace: str, claim: str, rct: str, *, preview: bool = False
) -> list[str]:
    """Each owner of the Pods that name `claim`, patched to give every Pod a claim of its own from
    the RCT `rct` (a JSON patch of the Pod template's entry; the controller rolls the Pods out).
    `preview`: the same patches, dry-run by the API server."""
    patches: dict[str, str] = {}
    for pod in sorted(snapshot.pods, key=lambda p: p.name):
        if pod.namespace != namespace or pod.phase in TERMINAL or not names_claim(pod, claim):
            continue
        target = restart_target(pod)
        index = next(i for i, ref in enumerate(pod.resource_claims) if ref.resource_claim_name == claim)
        entry = pod.resource_claims[index]
        value = {"name": entry.name, "resourceClaimTemplateName": rct}
        operation = [{"op": "replace", "path": f"/spec/template/spec/resourceClaims/{index}", "value": value}]
        if target:
            patches.setdefault(target, json.dumps(operation, separators=(",", ":")))
    dry = " --dry-run=server" if preview else ""
    return [
        f"kubectl -n {q(namespace)} patch {q(target)} --type=json -p {q(patch)}{dry}"
        for target, patch in patches.items()
    ]


def claim_fix_lines(
    snapshot: Snapshot, namespace: str, claim: str, proof: Proof | None, gates: str = ""
) -> list[str]:
    """A ResourceClaim that Pods name directly: its spec cannot change either, and it goes only once no
    Pod uses it. So: delete without waiting, re-create the Pods, wait for it to go, create it anew.
    A claim that does not exist yet is only written and created."""
    ns, name = q(namespace), q(claim)
    if proof is None:
        return [
            Said(Phrase("fix-note-claim-unproven", {"claim": claim})),
            f"kubectl rbln suggest-rct -n {ns} --claim {name}{gates_flag(gates)}",
        ]
    suggested, live = q(suggested_file(claim)), q(live_file(claim))
    release = claim_release(snapshot, namespace, claim)
    proven = Said(Phrase("fix-note-claim-proven", {"label": proof.label, "nodes": Names(list(proof.nodes))}))
    write = f"kubectl rbln suggest-rct -n {ns} --claim {name} --recipe {q(proof.recipe)}"
    write += f"{gates_flag(proof.gates)} > {suggested}"
    if snapshot.claim(namespace, claim) is None:  # nobody created it: the Pods that name it wait for it
        return [proven, write, f"cat {suggested}", f"kubectl -n {ns} create -f {suggested}"]
    chain = [
        f"kubectl create --dry-run=client -f {suggested} -o name >/dev/null",
        f"kubectl -n {ns} delete resourceclaim {name} --wait=false",
        *release.delete,
        f"kubectl -n {ns} wait --for=delete {q('resourceclaim/' + claim)} --timeout=10m",
        f"kubectl -n {ns} create -f {suggested}",
        *release.restore,
    ]
    return [
        proven,
        " && \\\n  ".join(
            [write, f"kubectl -n {ns} get resourceclaim {name} -o yaml > {live}", *release.save]
        ),
        f"diff -u {live} {suggested}",
        Said(Phrase("fix-note-claim-replace", {"claim": claim})),
        " && \\\n  ".join(chain),
    ]


# What `kubectl get -o json` adds that `create -f` refuses or must not copy (managedFields are hidden).
RCT_BOOKKEEPING = (
    ".metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp, .metadata.generation"
)
CLAIM_BOOKKEEPING = (
    RCT_BOOKKEEPING
    + ", .metadata.finalizers, .metadata.deletionTimestamp, .metadata.deletionGracePeriodSeconds, .status"
)


def edit_lines(
    snapshot: Snapshot, namespace: str, name: str, edit: Edit, *, claim: bool = False
) -> list[str]:
    """An exact edit of the RCT (`claim`: the ResourceClaim Pods name) made by jq on its live copy, then
    put in place as the recipe remedy puts its file: diff, replace, re-create every owner."""
    ns, obj = q(namespace), q(name)
    kind, devices = (
        ("resourceclaim", ".spec.devices") if claim else ("resourceclaimtemplate", ".spec.spec.devices")
    )
    bookkeeping = CLAIM_BOOKKEEPING if claim else RCT_BOOKKEEPING
    live, edited = q(f"{name}.live.json"), q(f"{name}.{edit.suffix}.json")
    variables = " ".join(f"{flag} {var} {q(value)}" for flag, var, value in edit.args)
    program = f"{devices} |= ({edit.program}) | del({bookkeeping})"
    lines: list[str] = [
        Said(edit.note),
        f"kubectl -n {ns} get {kind} {obj} -o json > {live}",
        f"jq {variables} {q(program)} {live} > {edited}",
        f"diff -u {live} {edited}",
    ]
    valid = f"kubectl create --dry-run=client -f {edited} -o name >/dev/null"
    if claim:
        release = claim_release(snapshot, namespace, name)
        chain = [
            valid,
            f"kubectl -n {ns} delete resourceclaim {obj} --wait=false",
            *release.delete,
            f"kubectl -n {ns} wait --for=delete {q('resourceclaim/' + name)} --timeout=10m",
            f"kubectl -n {ns} create -f {edited}",
            *release.restore,
        ]
        note = Said(Phrase("fix-note-claim-replace", {"claim": name}))
        return [*lines, *release.save, note, " && \\\n  ".join(chain)]
    rollouts, bare = owners(snapshot, namespace, name)
    return [
        *lines,
        Said(Phrase("fix-note-rct-replace", {"rct": name})),
        f"{valid} && \\\n  kubectl -n {ns} delete resourceclaimtemplate {obj}",
        f"kubectl -n {ns} create -f {edited}",
        *recreate_commands(namespace, rollouts, bare),
    ]
