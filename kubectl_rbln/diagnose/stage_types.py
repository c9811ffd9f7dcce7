"""The shapes of a Pod's life (diagnose/lifecycle.py decides them): its stages in order, each one's
state with the quotes and facts behind it. Kept apart so the Pod's context can hold a Life without
importing what decides it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

STAGES: tuple[str, ...] = (
    "created",  # the Pod (and its owners) were created: nothing refused to create it
    "claims-created",  # every spec.resourceClaims entry has its ResourceClaim (not being deleted)
    "queued",  # let into scheduling: no schedulingGates, PreEnqueue passed
    "scheduler",  # taken by a scheduler that allocates claims, and that scheduler is running
    "allocated",  # every claim allocated and reserved for the Pod
    "bound",  # spec.nodeName set (PreBind's binding conditions met, Bind done)
    "admitted",  # the kubelet admitted it (not Failed with an admission reason)
    "prepared",  # the kubelet prepared its claims (NodePrepareResources, CDI)
    "sandbox",  # the Pod sandbox was created (CNI, NRI hooks)
    "running",  # every container running and ready, not restarting, not stuck terminating
    "devices",  # running with what it was given (pod-devices)
)
PASSED, STUCK, UNKNOWN = "passed", "stuck", "unknown"
# What a stage without evidence holds: one empty tuple and one read-only empty mapping for every such
# stage, not a new list and dict each (`check` decides 11 stages of 40,000 Pods at 20,000 nodes, most
# of them passed with nothing to say). Neither can be changed, so no Pod's stage can leak into another's.
NO_FACTS: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Quote:
    """One piece of evidence as the input holds it: where it stands, and its text verbatim."""

    where: str  # "event FailedScheduling (default-scheduler)", "condition PodScheduled", "status.reason"
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"from": self.where, "text": self.text}

    def line(self) -> str:
        """`where: text`, as a finding's evidence lists it (`where` never holds ": ")."""
        return f"{self.where}: {self.text}"


@dataclass(slots=True)
class StageState:
    """One stage: passed, stuck or unknown, with the quotes and the facts that decide it."""

    stage: str
    status: str
    quotes: Sequence[Quote] = ()
    facts: Mapping[str, Any] = field(default_factory=lambda: NO_FACTS)  # names and counts (not quotes)
    assumption: str = ""  # what the API cannot show, said in `assumptions`
    # later stages it may be at as well, when nothing recorded tells them apart (events expire: a Pod
    # in ContainerCreating with no event may wait for its claims' preparation or for its sandbox)
    also: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"stage": self.stage, "status": self.status}
        if self.quotes:
            out["evidence"] = [q.to_dict() for q in self.quotes]
        if self.facts:
            out["facts"] = dict(self.facts)
        if self.assumption:
            out["assumption"] = self.assumption
        return out


@dataclass(slots=True)
class Life:
    """Every stage of one Pod, in order; `stuck` is the earliest stage not passed (None: it runs)."""

    stages: list[StageState]
    # the stuck stage, found on the first read (`check` reads it four times a Pod); a stage's status is
    # decided once, by decide_life, and never changes (stage_verdict may rename the stuck one, not undo it)
    _stuck: StageState | None | bool = field(default=False, init=False, repr=False, compare=False)

    @property
    def stuck(self) -> StageState | None:
        found = self._stuck
        if found is False:
            found = self._stuck = next((s for s in self.stages if s.status == STUCK), None)
        return found  # type: ignore[return-value]

    def state(self, stage: str) -> StageState | None:
        return next((s for s in self.stages if s.stage == stage), None)

    def assumptions(self) -> list[str]:
        return [s.assumption for s in self.stages if s.assumption]
