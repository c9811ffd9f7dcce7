"""The rules of krew's manifest validator, as a function.

Ported from kubernetes-sigs/krew: pkg/index/validation/validate.go (name, kind, apiVersion,
semver with a v, platforms: uri, sha256, bin, files, selector keys and empty selectors) and
cmd/validate-krew-manifest/main.go (the name equals the file name; every platform's selector
matches a supported os/arch; no os/arch is matched by two platforms; a LICENSE in the archive).
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
# allPlatforms() of cmd/validate-krew-manifest: the <os, arch> pairs krew is supported on.
KREW_PLATFORMS = (
    ("windows", "386"), ("windows", "amd64"), ("windows", "arm64"),
    ("linux", "386"), ("linux", "amd64"), ("linux", "arm"), ("linux", "arm64"), ("linux", "ppc64le"),
    ("darwin", "386"), ("darwin", "amd64"), ("darwin", "arm64"),
)  # fmt: skip
LICENSE_FILES = {"license", "license.txt", "license.md", "licenses", "licenses.txt", "licenses.md",
                 "copying", "copying.txt"}  # fmt: skip


def selector_matches(selector: Any, os_name: str, arch: str) -> bool:
    """metav1.LabelSelectorAsSelector(selector).Matches({os, arch}): matchLabels and In/NotIn/Exists."""
    if not isinstance(selector, dict):
        return False
    labels = {"os": os_name, "arch": arch}
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator = expression.get("key"), expression.get("operator")
        values = expression.get("values") or []
        present = key in labels
        if not {
            "In": present and labels.get(key) in values,
            "NotIn": not present or labels.get(key) not in values,
            "Exists": present,
            "DoesNotExist": not present,
        }.get(operator, False):
            return False
    return True


def has_license(names: list[str]) -> bool:
    """validateLicenseFileExists: some regular file of the archive is named LICENSE (or alike)."""
    return any(PurePosixPath(name).name.lower() in LICENSE_FILES for name in names)


def _selector_problems(index: int, selector: Any) -> list[str]:
    where = f"platforms[{index}].selector"
    if not isinstance(selector, dict) or not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    ):
        return [f"{where} is required and must not be empty"]
    problems = []
    for field in ("matchLabels", "matchExpressions"):
        if field in selector and not selector[field]:
            problems.append(f"{where}.{field} specified but empty")
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
    selectors = [p.get("selector") if isinstance(p, dict) else None for p in platforms]
    for index, selector in enumerate(selectors):
        if selector and not any(selector_matches(selector, *pair) for pair in KREW_PLATFORMS):
            found.append(f"platforms[{index}].selector matches no supported platform")
    for pair in KREW_PLATFORMS:
        matching = [
            i for i, selector in enumerate(selectors) if selector and selector_matches(selector, *pair)
        ]
        if len(matching) > 1:
            found.append(
                f"platforms at indexes {matching} have overlapping selectors that select {'/'.join(pair)}"
            )
    return found
