"""Names, uids, numbers and times as pure functions of the seed.

Why: hashing (seed, parts) instead of drawing from a random stream makes every value independent
of build order, so a Pod's name is known before the cluster is built and two builds of the same
seed are byte-identical.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Any

K8S_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery utilrand alphabet
BASE_TIME = datetime(2026, 9, 14, 6, 0, 0, tzinfo=timezone.utc)


class Ids:
    """Names, uids and numbers as pure functions of (seed, parts): order of building never matters."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def _digest(self, parts: tuple[Any, ...]) -> bytes:
        text = "\x1f".join(str(p) for p in (self.seed, *parts))
        return hashlib.sha256(text.encode()).digest()

    def uid(self, *parts: Any) -> str:
        """A version-4 UUID (same bits as uuid.UUID(bytes=..., version=4), formatted without it)."""
        raw = bytearray(self._digest(("uid", *parts))[:16])
        raw[6] = (raw[6] & 0x0F) | 0x40
        raw[8] = (raw[8] & 0x3F) | 0x80
        h = raw.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def suffix(self, length: int, *parts: Any) -> str:
        digest = self._digest(("suffix", *parts))
        return "".join(K8S_ALPHABET[b % len(K8S_ALPHABET)] for b in digest[:length])

    def hex(self, length: int, *parts: Any) -> str:
        return self._digest(("hex", *parts)).hex()[:length]

    def num(self, low: int, high: int, *parts: Any) -> int:
        value = int.from_bytes(self._digest(("num", *parts))[:8], "big")
        return low + value % (high - low + 1)


def pod_net(node_index: int) -> str:
    """The first three octets of a node's /24 pod CIDR, valid for any cluster size up to 16k nodes."""
    return f"10.{64 + node_index // 256}.{node_index % 256}"


@lru_cache(maxsize=4096)
def ts(seconds: int) -> str:
    return (BASE_TIME + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def k8s_minor(version: str) -> int:
    try:
        return int(version.lstrip("v").split(".")[1])
    except (IndexError, ValueError):
        return 34
