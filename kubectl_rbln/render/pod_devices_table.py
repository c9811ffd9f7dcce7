"""The human view of `pod-devices`: one row per Pod, then what is wrong with each, one block a Pod.

A cell reads "seen/allocated" so a mismatch shows at a glance; the verdict names
the most severe finding's slug or why the Pod could not be probed. Every string
that came from a Pod is sanitized again here, whatever the caller did.
"""

from __future__ import annotations

import re
from typing import Any

import click

from kubectl_rbln.catalog import load_sentences, sentence
from kubectl_rbln.render.columns import plain_table
from kubectl_rbln.render.why_table import COLORS, SYMBOLS, WIDTH, render_finding
from kubectl_rbln.render.width import wrap_width
from kubectl_rbln.text import one_line, strip_controls

HEADERS = ["POD", "NODE", "NPUS", "NICS", "RDS", "MEMLOCK", "VERDICT"]


def not_running(entry: dict[str, Any]) -> bool:
    """A Pod that exec cannot reach by its phase or its container's state: one line, no counts."""
    return entry["probe"].get("reason") in ("not-running", "container-not-running")


def health_cell(entry: dict[str, Any], lang: str) -> str:
    """The container's allocatedResourcesStatus in a word: all Healthy, or how many are not."""
    health = entry.get("health") or []
    if not health:
        return "-"
    bad = sum(1 for h in health if h["health"] == "Unhealthy")
    unknown = sum(1 for h in health if h["health"] not in ("Healthy", "Unhealthy"))
    if bad:
        return sentence("pod-devices-health-unhealthy", lang, count=bad)
    if unknown:
        return sentence("pod-devices-health-unknown", lang, count=unknown)
    return sentence("pod-devices-health-ok", lang)


def cells(entry: dict[str, Any], lang: str = "en", wide: bool = False) -> dict[str, str]:
    """The row's cells, derived from the JSON entry so that table and -o json never disagree.
    `-o wide` adds to them what the findings below the table also say (no /dev/rsd0, shared mode)."""
    expected, seen = entry["expected"], entry.get("seen")
    if seen is None and not_running(entry):
        npus = nics = rds = memlock = "-"
    elif seen is None:
        npus = f"?/{expected['npuCount']}" if expected["npuCount"] else "-"
        nics = f"?/{expected['nicCount']}" if expected["nicCount"] else "-"
        rds, memlock = "?", "?"
    else:
        npus = f"{len(seen['npus'])}/{expected['npuCount']}"
        if wide and expected["rsd"] and "rsd0" not in seen["rsd"]:
            npus += " " + sentence("pod-devices-no-rsd0", lang)
        nics = f"{seen['nicCount']}/{expected['nicCount']}"
        if wide and entry["rdmaMode"] == "shared":
            nics += " " + sentence("pod-devices-shared", lang, count=len(seen["infiniband"]))
        if seen["rds"]:
            rds = ",".join(seen["rds"])
        else:
            rds = sentence("pod-devices-missing", lang) if expected["rds"] and expected["npuCount"] else "-"
        memlock = seen["memlock"] or "?"
    return {"npus": npus, "nics": nics, "rds": rds, "memlock": memlock, "health": health_cell(entry, lang)}


def _verdict(entry: dict[str, Any], color: bool, lang: str = "en") -> str:
    verdict = strip_controls(entry["verdict"])
    if not entry["findings"] and entry["probe"]["status"] != "ok":
        verdict = _probe_words(entry, "pod-devices-short-", lang) or verdict
    if entry["findings"]:
        severity = entry["findings"][0]["severity"]
        text = f"{SYMBOLS.get(severity, '-')} {verdict}"
        return click.style(text, fg=COLORS.get(severity), bold=True) if color else text
    if entry["probe"]["status"] != "ok":
        return click.style(verdict, fg="yellow") if color else verdict
    verdict = sentence("pod-devices-ok", lang)
    return click.style(verdict, fg="green") if color else verdict


def render_rows(
    entries: list[dict[str, Any]],
    *,
    color: bool,
    namespaces: bool,
    lang: str = "en",
    wide: bool = False,
    width: int = WIDTH,
) -> list[str]:
    """One row a Pod; NODE only with `-o wide` (each Pod's block names its node), and a HEALTH
    column (allocatedResourcesStatus) only when some Pod reports it; cells wrap to fit the width."""
    with_health = any(entry.get("health") for entry in entries)
    headers = sentence("pod-devices-columns", lang).split("|")
    rows = []
    for entry in entries:
        c = cells(entry, lang, wide)
        name = f"{entry['namespace']}/{entry['name']}" if namespaces else entry["name"]
        row = [name, entry["node"] or "-", c["npus"], c["nics"], c["rds"], c["memlock"]]
        if with_health:
            row.append(c["health"])
        rows.append([strip_controls(str(cell)) for cell in row] + [_verdict(entry, color, lang)])
    if with_health:
        headers.insert(-1, sentence("pod-devices-health-column", lang))
    if not wide:
        headers.pop(1)
        rows = [row[:1] + row[2:] for row in rows]
    return plain_table(rows, headers=headers, width=None if wide else width, disable_numparse=True)


def _probe_words(entry: dict[str, Any], prefix: str, lang: str) -> str:
    """The catalog's words for why the Pod was not probed, or "" when it has none or a value is
    missing (a bundle from an older dump): the caller then shows the English message."""
    probe = entry["probe"]
    values = {
        "pod": entry["name"],
        "namespace": entry["namespace"],
        "container": entry["container"],
        "phase": entry.get("phase") or "",
        **(probe.get("values") or {}),
    }
    key = prefix + str(probe.get("reason") or "")
    if prefix != "pod-devices-short-" and probe.get("reason") == "bad-output" and not values.get("got"):
        key += "-end"
    if prefix != "pod-devices-short-" and values.get("by") == "dump":  # dump's own limit, not --timeout
        key += "-dump"
    if key not in load_sentences():
        return ""
    wanted = set(re.findall(r"\{(\w+)", load_sentences()[key]["en"]))
    if any(values.get(name) in (None, "") for name in wanted):
        return ""
    return sentence(key, lang, **{k: strip_controls(str(v)) for k, v in values.items()})


def probe_message(entry: dict[str, Any], lang: str) -> str:
    """Why the Pod was not probed, in the catalog's words; what the cluster or the Pod said follows
    quoted (it is theirs, in their language). Without the words, the English message as given."""
    probe = entry["probe"]
    if probe.get("reason") == "not-running" and entry.get("phase"):
        return sentence(
            "pod-devices-not-running",
            lang,
            phase=entry["phase"],
            pod=entry["name"],
            namespace=entry["namespace"],
        )
    text = _probe_words(entry, "pod-devices-probe-", lang)
    if not text:
        return one_line(probe["message"])
    detail = one_line(str((probe.get("values") or {}).get("detail") or ""))
    return f'{text}: "{detail}"' if detail else text


def render_details(
    entry: dict[str, Any], *, color: bool, wide: bool, lang: str = "en", width: int = WIDTH
) -> list[str]:
    """Findings and the probe problem of one Pod; nothing for a healthy one (`-o wide`: its devices).
    A Pod that is not running is one line: nothing was probed, so nothing else is said."""
    probe = entry["probe"]
    pod = f"{entry['namespace']}/{entry['name']}"
    if not_running(entry) and not entry["findings"]:
        line = f"{pod}: {probe_message(entry, lang)}"
        return ["", *_wrapped(line, wide, width, first="")]
    devices = device_lines(entry, lang) if wide else []
    if not entry["findings"] and probe["status"] == "ok" and not devices:
        return []
    if entry["node"]:
        head = sentence("pod-devices-where", lang, pod=pod, node=entry["node"], container=entry["container"])
    else:
        head = sentence("pod-devices-where-unscheduled", lang, pod=pod, container=entry["container"])
    heads = _wrapped(head, wide, width, "")
    lines = ["", *(click.style(line, bold=True) if color else line for line in heads)]
    lines += ["  " + strip_controls(line) for line in devices]
    if probe["status"] != "ok":
        probe_text = sentence("pod-devices-probe", lang, message=probe_message(entry, lang))
        lines += _wrapped(probe_text, wide, width)
    if entry["rdmaMode"] == "shared" and entry.get("seen") and entry["seen"].get("probeVersion", 1) < 2:
        seen = entry["seen"]
        text = sentence(
            "pod-devices-shared-mode", lang, hcas=len(seen["infiniband"]), uverbs=len(seen["uverbs"])
        )
        lines += _wrapped(text, wide, width)
    for finding in entry["findings"]:
        # indented by two: the finding is drawn two columns narrower so it still ends at the width
        block = render_finding(finding, color=color, wide=wide, lang=lang, width=width - 2)
        lines.extend("  " + line for line in block)
    return lines


def _wrapped(text: str, wide: bool, width: int = WIDTH, first: str = "  ") -> list[str]:
    return [first + text] if wide else wrap_width(text, width, first, "    ")


def device_lines(entry: dict[str, Any], lang: str) -> list[str]:
    """`-o wide`: the allocated devices by name and PCI address, each as the Pod sees it."""
    expected, seen = entry["expected"], entry.get("seen")
    lines = []
    if expected["npus"] or (seen and seen["npus"]):
        shown = ", ".join(f"/dev/{n}" for n in seen["npus"]) if seen else "?"
        allocated = ", ".join(expected["npus"]) or str(expected["npuCount"] or "-")  # device plugin: a count
        lines.append(sentence("pod-devices-wide-npus", lang, allocated=allocated, seen=shown or "-"))
    links = {n["device"]: n for n in (seen or {}).get("nics") or []}
    for nic in expected.get("nicDevices") or []:
        label = f"{nic['device']} {nic['pciAddress'] or ''}".strip()
        link = links.get(nic["device"])
        if seen is None or link is None:
            lines.append(sentence("pod-devices-wide-nic-unknown", lang, nic=label))
        elif link["interface"] is None:
            lines.append(sentence("pod-devices-wide-nic-absent", lang, nic=label))
        else:
            iface = link["interface"]
            state = (iface["state"] or "?").upper()  # as `ip link` prints it: UP, DOWN
            hca = link["rdmaDevice"]
            rdma = "-"
            if hca is not None:
                uverbs = link["uverbs"] or "uverbs?"
                rdma = f"{hca['name']} {hca['port'] or '?'} {uverbs}"
            lines.append(
                sentence(
                    "pod-devices-wide-nic",
                    lang,
                    nic=label,
                    interface=f"{iface['name']} ({state}, MTU {iface['mtu'] or '?'})",
                    rdma=rdma,
                )
            )
    for health in entry.get("health") or []:
        message = f' "{health["message"]}"' if health.get("message") else ""
        lines.append(f"{health['name']} {health['resourceID']}: {health['health']}{message}")
    return lines


def render_report(
    report: dict[str, Any], *, color: bool, wide: bool, lang: str = "en", width: int = WIDTH
) -> str:
    entries = report["pods"]
    lines: list[str] = []
    for problem in report.get("problems") or []:
        lines += _wrapped(f"{sentence('label-warning', lang)} {one_line(problem)}", wide, width, "")
    if not entries:
        lines += _wrapped(report.get("message", "no device Pod found"), wide, width, "")
        return "\n".join(lines) + "\n"
    namespaces = len({e["namespace"] for e in entries}) > 1
    lines += render_rows(entries, color=color, namespaces=namespaces, lang=lang, wide=wide, width=width)
    for entry in entries:
        lines += render_details(entry, color=color, wide=wide, lang=lang, width=width)
    return "\n".join(lines) + "\n"
