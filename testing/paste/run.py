"""Paste every fix block of one scenario against its own replay server, and check what ran.

Why: one server per scenario, one read cache per scenario (every block of it asks the same
cluster), each block in a fresh directory. The server is read-only and is asked afterwards
whether any write reached it: pasting a fix must never change the cluster it diagnoses.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.replay.server import ReplayServer
from testing.paste.blocks import FixText, scenario_fix_texts
from testing.paste.changes import owned_pods
from testing.paste.checks import Cluster, Problem, check_fix
from testing.paste.shell import Paste, Workstation
from testing.synthetic.scenarios import SCENARIOS

WORKERS = 3  # blocks pasted at once: a paste mostly waits on kubectl, the plugin and the server


@dataclass
class Found:
    """One problem, and the fix (its findings, its language) it was found in."""

    problem: Problem
    fix: FixText

    def __str__(self) -> str:
        slugs = ", ".join(dict.fromkeys(self.fix.slugs))
        return f"[{self.fix.lang}] {slugs} / {self.problem.block}: {self.problem.detail}"


@dataclass
class ScenarioRun:
    name: str
    found: list[Found] = field(default_factory=list)
    writes: list[Any] = field(default_factory=list)  # write verbs that reached the server
    pastes: list[tuple[FixText, list[Paste]]] = field(default_factory=list)

    def of(self, check: str) -> list[Found]:
        return [f for f in self.found if f.problem.check == check]


def cluster_of(objects: list[dict[str, Any]], pod: tuple[str, str]) -> Cluster:
    """What the checks need to know of the cluster a fix is pasted against."""
    nodes = frozenset(o["metadata"]["name"] for o in objects if o.get("kind") == "Node")
    return Cluster(nodes, owned_pods(objects), build_snapshot(objects), pod)


def paste_fixes(
    shell: Workstation, texts: list[FixText], cluster: Cluster
) -> list[tuple[FixText, list[Paste]]]:
    """Each block of each fix pasted alone; a block printed twice (two findings) is pasted once."""
    blocks = {block.text: block for text in texts for block in text.blocks()}
    with ThreadPoolExecutor(WORKERS) as pool:  # the blocks are independent: each its own directory
        pasted = dict(zip(blocks, pool.map(shell.paste, blocks), strict=True))
    return [(text, [pasted[block.text] for block in text.blocks()]) for text in texts]


def problems_of(text: FixText, pastes: list[Paste], cluster: Cluster) -> list[Problem]:
    return check_fix(text, list(zip(text.blocks(), pastes, strict=True)), cluster)


def paste_scenario(
    name: str, root: Path, kubectl: str, langs: tuple[str, ...], plugin_socket: str = ""
) -> ScenarioRun:
    """Every fix of scenario `name` (why, check, attrs; in `langs`) pasted block by block."""
    scenario = SCENARIOS[name]
    objects = scenario.build("v1")
    cluster = cluster_of(objects, scenario.pending_pod)
    texts = scenario_fix_texts(cluster.snapshot, scenario.pending_pod[0], langs)
    run = ScenarioRun(name)
    server = ReplayServer(objects).start()
    try:
        kubeconfig = root / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        run.pastes = paste_fixes(Workstation(root, kubeconfig, kubectl, plugin_socket), texts, cluster)
    finally:
        server.stop()
    run.writes = list(server.write_attempts())
    for text, pastes in run.pastes:
        run.found += [Found(problem, text) for problem in problems_of(text, pastes, cluster)]
    return run
