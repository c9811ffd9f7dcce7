"""What the fact builders (simulation, events) read of a Pod's context, without importing it.

PodContext computes its facts lazily by calling these builders; typing them against this
Protocol instead of PodContext keeps the import graph free of cycles.
"""

from __future__ import annotations

from typing import Any, Protocol

from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.model import Event, Pod, Snapshot


class PodView(Protocol):
    snapshot: Snapshot
    pod: Pod
    claims: list[Any]
    features: Features

    @property
    def unallocated(self) -> list[Any]: ...

    @property
    def events(self) -> list[Event]: ...
