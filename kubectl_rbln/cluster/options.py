"""Where to read from: the part of the command line the source layer needs, and nothing else.

The source (cluster/source.py) sits below the CLI, so it takes this small
dataclass instead of the CLI's `Options`: output format, colour or language
are none of its business, and a caller without click (bench/run, a notebook)
can build one directly. cli/options.py's `Options.source` builds it from the
shared flags.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubectl_rbln.cluster.client_flags import ClientFlags


@dataclass(frozen=True, slots=True)
class SourceOptions:
    """A cluster (kubeconfig, context, namespace) or files to read, and how long to wait."""

    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None  # None: the context's namespace, else "default"
    all_namespaces: bool = False
    request_timeout: float = 30.0
    filenames: tuple[str, ...] = ()
    # live reads: the kinds a command reads (None: every list a diagnosis needs). `attrs` reads the
    # DRA objects only: half the bytes of a 5,000-node cluster are Pods, claims and nodes it never reads.
    kinds: frozenset[str] | None = None
    flags: ClientFlags = ClientFlags()  # kubectl's connection flags: --as, --token, --server, TLS...

    @property
    def offline(self) -> bool:
        """`-f` given: read files, never a cluster."""
        return bool(self.filenames)
