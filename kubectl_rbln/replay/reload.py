"""Serve a bundle that changes: re-read its files when one changes on disk (`kubectl rbln serve`).

A user replaying an incident, or a test of `why --watch`, writes the next state of the cluster
over the bundle (or into its folder) and the server answers from it on the next request, as a
live API server answers from its latest state. A file caught half-written, or broken, does not
load: the old objects are kept, one line on stderr says so, and that state of the files is not
read again (not on every request): the next change on disk is. Write the new bundle beside it
and rename it over the old one (`mv` is atomic) to never be caught.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from kubectl_rbln.catalog.cli_words import cli_line, error_text
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


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class BundleReloader:
    """Calls `install(objects)` with the re-read bundle after a file changed; at most every `interval` s."""

    def __init__(
        self,
        paths: tuple[str, ...],
        interval: float = 0.2,
        warn: Callable[[str], None] = _stderr,
        lang: str = "en",
    ) -> None:
        self.paths = tuple(p for p in paths if p != "-")  # stdin is read once
        self.interval = interval
        self.warn = warn
        self.lang = lang  # of the warning: a request's thread does not carry the command line's
        self.generation = 0  # how many times the bundle was re-read
        self.failures = 0  # how many changed states of the files did not load
        self._stamp = stamp(self.paths)
        self._checked = time.monotonic()
        self._lock = threading.Lock()

    def refresh(self, install: Callable[[list[dict[str, Any]]], None]) -> bool:
        """Re-read if a file changed since the last look; True when new objects were installed.

        One request re-reads; the others meanwhile answer from the objects they have (no waiting
        on a 100 MB bundle's parse). A state of the files that fails is remembered as looked at,
        so it costs one read and one line on stderr, not one per request."""
        if not self.paths or time.monotonic() - self._checked < self.interval:
            return False
        if not self._lock.acquire(blocking=False):
            return False
        try:
            self._checked = time.monotonic()
            now = stamp(self.paths)
            if now == self._stamp:
                return False
            self._stamp = now
            try:
                objects = load_objects(list(self.paths))
            except RblnError as exc:
                self.failures += 1
                self.warn(
                    cli_line(
                        "warning: the bundle changed on disk and does not load ({message}); "
                        "still serving the last good one",
                        self.lang,
                        message=error_text(exc.message, self.lang),
                    )
                )
                return False
            install(objects)
            self.generation += 1
            return True
        finally:
            self._lock.release()
