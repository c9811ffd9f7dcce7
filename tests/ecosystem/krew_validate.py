"""The rules of krew's manifest validator (internal/index/validation/validate.go), as a function.

ecosystem-facts.md section 4.1 lists them; each rule here returns a sentence naming what broke,
so a failing test reads like `validate-krew-manifest` would.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

API_VERSION = "krew.googlecontainertools.github.com/v1alpha2"
NAME = re.compile(r"^[\w-]+$")
SEMVER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
SHA256 = re.compile(r"^[a-f0-9]{64}$")
WINDOWS_DEVICES = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(1, 10)),
    *(f"lpt{i}" for i in range(1, 10)),
}
SELECTOR_KEYS = {"os", "arch"}


def _selector_problems(index: int, selector: Any) -> list[str]:
    where = f"platforms[{index}].selector"
    if not isinstance(selector, dict) or not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    ):
        return [f"{where} is required and must not be empty"]
    problems = []
    keys = set((selector.get("matchLabels") or {}).keys())
    keys |= {e.get("key") for e in selector.get("matchExpressions") or [] if isinstance(e, dict)}
    if keys - SELECTOR_KEYS:
        problems.append(f"{where} uses keys {sorted(keys - SELECTOR_KEYS)}; only os and arch are allowed")
    return problems


def _platform_problems(index: int, platform: Any) -> list[str]:
    where = f"platforms[{index}]"
    if not isinstance(platform, dict):
        return [f"{where} is not a mapping"]
    problems = _selector_problems(index, platform.get("selector"))
    uri = str(platform.get("uri") or "")
    if not uri:
        problems.append(f"{where}.uri is required")
    elif not uri.endswith((".zip", ".tar.gz")):
        problems.append(f"{where}.uri must end in .zip or .tar.gz: {uri}")
    if not SHA256.match(str(platform.get("sha256") or "")):
        problems.append(f"{where}.sha256 must be 64 lowercase hex characters")
    if not platform.get("bin"):
        problems.append(f"{where}.bin is required")
    files = platform.get("files")
    if files is not None and (
        not isinstance(files, list)
        or not files
        or not all(isinstance(f, dict) and f.get("from") and f.get("to") for f in files)
    ):
        problems.append(f"{where}.files, when present, must be a non-empty list of {{from, to}}")
    return problems


def problems(manifest: Any, filename: str | None = None) -> list[str]:
    """Everything krew's validator would reject; pass `filename` to apply the name == file rule."""
    if not isinstance(manifest, dict):
        return ["the manifest is not a mapping"]
    found = []
    if manifest.get("apiVersion") != API_VERSION:
        found.append(f"apiVersion must be {API_VERSION}")
    if manifest.get("kind") != "Plugin":
        found.append("kind must be Plugin")
    name = str((manifest.get("metadata") or {}).get("name") or "")
    if not NAME.match(name):
        found.append(f"metadata.name {name!r} must match {NAME.pattern}")
    if name.lower() in WINDOWS_DEVICES:
        found.append(f"metadata.name {name!r} is a Windows device name")
    if filename is not None and PurePosixPath(filename).name != f"{name}.yaml":
        found.append(f"metadata.name {name!r} must equal the file name {PurePosixPath(filename).name}")
    spec = manifest.get("spec") or {}
    if not SEMVER.match(str(spec.get("version") or "")):
        found.append(f"spec.version {spec.get('version')!r} must be semver with a v prefix")
    short = str(spec.get("shortDescription") or "")
    if not short.strip() or "\n" in short.strip():
        found.append("spec.shortDescription must be one non-empty line")
    platforms = spec.get("platforms") or []
    if not platforms:
        found.append("spec.platforms needs at least one platform")
    for index, platform in enumerate(platforms):
        found += _platform_problems(index, platform)
    return found
