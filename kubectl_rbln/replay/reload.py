"""Serve a bundle that changes: re-read its files when one changes on disk (`kubectl rbln serve`).

A user replaying an incident, or a test of `why --watch`, writes the next state of the cluster
over the bundle (or into its folder) and the server answers from it on the next request, as a
live API server answers from its latest state. A file caught half-written does not load; the
old objects are kept and the next request tries again, so write the new bundle beside it and
rename it over the old one (`mv` is atomic) to never be caught.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.errors import RblnError

Stamp = tuple[tuple[str, int, int], ...]  # (path, mtime_ns, size) of every file read


def _files(path: str) -> list[str]:
    if os.path.isdir(path):
        return sorted(os.path.join(root, name) for root, _, names in os.walk(path) for name in names)
    return [path]


def stamp(paths: tuple[str, ...]) -> Stamp:
    """What identifies the files' contents cheaply: their names, modification times and sizes."""
    found = []
    for path in paths:
        for name in _files(path):
            try:
                info = os.stat(name)
            except OSError:
                continue  # removed between the listing and the stat: the next look sees it
            found.append((name, info.st_mtime_ns, info.st_size))
    return tuple(found)


class BundleReloader:
    """Calls `install(objects)` with the re-read bundle after a file changed; at most every `interval` s."""

    def __init__(self, paths: tuple[str, ...], interval: float = 0.2) -> None:
        self.paths = tuple(p for p in paths if p != "-")  # stdin is read once
        self.interval = interval
        self.generation = 0  # how many times the bundle was re-read
        self._stamp = stamp(self.paths)
        self._checked = time.monotonic()
        self._lock = threading.Lock()

    def refresh(self, install: Callable[[list[dict[str, Any]]], None]) -> bool:
        """Re-read if a file changed since the last read; True when new objects were installed."""
        if not self.paths or time.monotonic() - self._checked < self.interval:
            return False
        with self._lock:
            self._checked = time.monotonic()
            now = stamp(self.paths)
            if now == self._stamp:
                return False
            try:
                objects = load_objects(list(self.paths))
            except RblnError:
                return False  # half-written or broken: keep serving the last good bundle
            install(objects)
            self._stamp = now
            self.generation += 1
            return True
