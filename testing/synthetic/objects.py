"""Lookups over a built cluster's objects by kind, name and owner: what scenario tests ask of a bundle."""

from __future__ import annotations

from typing import Any


class ClusterObjects:
    """A list of API objects (dicts, as a bundle holds them) with the lookups tests share."""

    objects: list[dict[str, Any]]

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] == kind]

    def pod(self, name: str) -> dict[str, Any]:
        return next(p for p in self.of_kind("Pod") if p["metadata"]["name"] == name)

    def claim(self, pod: str) -> dict[str, Any]:
        """The ResourceClaim generated for `pod` (its first owner)."""
        return next(
            c for c in self.of_kind("ResourceClaim") if c["metadata"]["ownerReferences"][0]["name"] == pod
        )

    def device(self, pool: str, name: str) -> dict[str, Any]:
        for s in self.of_kind("ResourceSlice"):
            if s["spec"]["pool"]["name"] == pool:
                for d in s["spec"]["devices"]:
                    if d["name"] == name:
                        return d
        raise KeyError(name)
