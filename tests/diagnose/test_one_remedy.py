"""One remedy per root cause: why, check, attrs and suggest-rct print the same steps (issue 22, 4).

Compared on their `-o json` documents, over every scenario: wherever a fix puts a suggested RCT in
place, its steps from writing the file to re-creating the owners are exactly the steps `suggest-rct
--recipe R` prints for that RCT; the same finding gets the same fix from `why` and from `check`; and
the re-creation names every owner of the Pods that use the RCT, not the first Pod's.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest

from kubectl_rbln.app.attrs import AttrsRequest, attrs
from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.app.suggest_rct import SuggestRequest, suggest_rct
from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.remedy.rct_fix import owners
from testing.synthetic.scenarios import SCENARIOS

WRITE = re.compile(r"^kubectl rbln suggest-rct -n (\S+) --(rct|claim) (\S+) --recipe (\S+) > ")


def documents(name: str) -> tuple[Any, dict[str, list[tuple[str, dict[str, Any]]]]]:
    """The scenario's snapshot, and (the Pod it is about, or "") with each finding document of why,
    check and attrs."""
    scenario = SCENARIOS[name]
    snapshot = build_snapshot(scenario.build("v1"))
    namespace = scenario.pending_pod[0]
    report = why(snapshot, WhyRequest((), namespace))
    checked = run_check(snapshot, CheckRequest(namespace, "npu-rdma"))
    compared = attrs(snapshot, AttrsRequest(namespace, "npu-rdma"))
    by_command = {
        "why": [(d.pod.key, f.to_dict("en")) for d in report.diagnoses for f in d.findings],
        "check": [
            (item.diagnosis.pod.key if item.diagnosis else "", f.to_dict("en"))
            for item in checked.items
            for f in item.findings
        ],
        "attrs": [("", f.to_dict("en")) for f in compared.findings],
    }
    return snapshot, by_command


def paths(fix: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [fix["steps"], *(alternative["steps"] for alternative in fix["alternatives"])]


def shared_remedies(
    steps: list[dict[str, Any]],
) -> list[tuple[tuple[str, str, str, str], list[dict[str, Any]]]]:
    """Each (namespace, rct|claim, name, recipe) a path puts in place, with its steps from the write on."""
    found = []
    for index, step in enumerate(steps):
        match = next((WRITE.match(c) for c in step["commands"] if WRITE.match(c)), None)
        if match and step["kind"] == "write":
            key = tuple(shlex.split(part)[0] for part in match.groups())
            found.append((key, steps[index : index + 3]))
    return found


def same_steps(remedy: list[dict[str, Any]], suggested: list[dict[str, Any]]) -> bool:
    """The same commands, kinds, places and effects; the finding's own words may open a step
    (its notes end with suggest-rct's)."""
    if len(remedy) != len(suggested):
        return False
    for mine, theirs in zip(remedy, suggested, strict=True):
        plain = {k: v for k, v in mine.items() if k != "notes"}
        if plain != {k: v for k, v in theirs.items() if k != "notes"}:
            return False
        if theirs["notes"] and mine["notes"][-len(theirs["notes"]) :] != theirs["notes"]:
            return False
    return True


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_command_puts_an_rct_in_place_with_suggest_rcts_own_steps(name: str) -> None:
    snapshot, by_command = documents(name)
    expected: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for command, findings in by_command.items():
        for _, finding in findings:
            for steps in paths(finding["fix"]):
                for (namespace, kind, target, recipe), remedy in shared_remedies(steps):
                    key = (namespace, kind, target, recipe)
                    if key not in expected:
                        request = SuggestRequest(namespace, target, recipe=recipe, claim=kind == "claim")
                        expected[key] = suggest_rct(snapshot, request).to_document("en")["fix"]["steps"]
                    assert same_steps(remedy, expected[key]), f"{command}/{finding['slug']}: {key}"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_why_and_check_give_one_finding_one_fix(name: str) -> None:
    _, by_command = documents(name)
    fixes: dict[tuple[str, str], dict[str, Any]] = {}
    for command in ("why", "check"):
        for pod, finding in by_command[command]:
            key = (pod, finding["slug"], repr(finding["evidence"]))
            fixes.setdefault(key, finding["fix"])
            assert finding["fix"] == fixes[key], (
                f"{command}/{finding['slug']}: another fix for the same cause"
            )


def test_the_example_restarts_every_owner_of_the_group() -> None:
    """prefill and decode are two Deployments of one RCT: both are re-created, by every command."""
    snapshot, by_command = documents("nic-no-numanode")
    rollouts, _ = owners(snapshot, "serving", "npu-rdma")
    assert len(rollouts) >= 2, rollouts
    for command, findings in by_command.items():
        for _, finding in findings:
            for steps in paths(finding["fix"]):
                for _, remedy in shared_remedies(steps):
                    restart = next(c for c in remedy[-1]["commands"] if "rollout restart" in c)
                    assert all(owner in restart for owner in rollouts), (command, restart)
