"""Parse (never print) the event and condition texts of the DRA scheduling path, Kubernetes 1.32-1.35.

The scheduler tells a user almost nothing: per node it says `cannot allocate all claims`, and
it folds everything into one `0/N nodes are available: ...` line. The checks still need to
know *which* message it was, with its variables (claim, request, class, the CEL key), to pick
a finding and to show the user's own text as evidence. This module turns those texts into
data, following the formats of dra-facts.md section 1:

- section 1.1, the FailedScheduling aggregate (histogram or PreFilter form, PostFilter tail,
  scheduler errors, truncated event notes),
- section 1.2, the DynamicResources plugin messages,
- section 1.3, the structured allocator's errors (SchedulerError, "fatal"),
- section 1.4, the resource-claim controller's FailedResourceClaimCreation texts,
- section 1.5, API-server validation texts,
plus the kubelet's claim preparation failures.

Every function here is total: any text, however long or strange, yields a result, never an
exception, because a diagnosis must not die on an event it has never seen.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from functools import lru_cache

from kubectl_rbln.dra.model import Condition, Event

ALL_VERSIONS: tuple[str, ...] = ("1.32", "1.33", "1.34", "1.35")
"""The Kubernetes minors this parser knows; a message's `versions` is a subset."""

_FROM_133 = ("1.33", "1.34", "1.35")
_FROM_134 = ("1.34", "1.35")

# Inputs longer than this are cut before matching: an event note is at most 1 KiB and a
# condition message a few KiB, so anything longer is not a Kubernetes text and must not cost
# a regex engine minutes.
MAX_TEXT = 32 * 1024

TRUNCATION_SUFFIX = " ..."

CATEGORIES = ("dra", "taint", "resources", "affinity", "unschedulable", "other")


@dataclass(frozen=True, slots=True)
class DraMessage:
    """One recognized DRA message.

    `code` is stable (checks and tests key on it); `fields` holds the message's variables
    (namespace, pod, claim, request, class, attribute, pool, driver, device, template, ...);
    `fatal` is True when the text makes the scheduling attempt fail as a SchedulerError
    instead of an Unschedulable fit error; `versions` lists the minors that emit it.
    """

    code: str
    text: str
    fields: dict[str, str] = field(default_factory=dict)
    fatal: bool = False
    versions: tuple[str, ...] = ALL_VERSIONS
    source: str = "scheduler"  # scheduler | allocator | controller | apiserver | kubelet


@dataclass(frozen=True, slots=True)
class NodeReason:
    """One histogram entry of a fit error: `count` nodes rejected the Pod for `text`."""

    count: int
    text: str
    category: str  # one of CATEGORIES
    resource: str | None = None  # for "Insufficient X" and "Too many pods"
    taint: str | None = None  # for untolerated taints: "key: value" as printed
    dra: DraMessage | None = None


@dataclass(slots=True)
class SchedulingMessage:
    """A parsed FailedScheduling note or PodScheduled condition message."""

    text: str
    total_nodes: int | None = None
    reasons: list[NodeReason] = field(default_factory=list)
    prefilter: str | None = None
    postfilter: str | None = None
    preemption: list[NodeReason] = field(default_factory=list)
    scheduler_error: str | None = None
    error_plugin: str | None = None  # the plugin named by `running ... plugin`
    dra: list[DraMessage] = field(default_factory=list)
    truncated: bool = False

    @property
    def categories(self) -> set[str]:
        """The categories of the per-node reasons, for "is this about devices at all?"."""
        return {reason.category for reason in self.reasons}


@dataclass(slots=True)
class ParsedEvent:
    """What `classify_event` made of one Event."""

    kind: str  # scheduling | claim-creation | kubelet | backoff | other
    event: Event
    scheduling: SchedulingMessage | None = None
    dra: list[DraMessage] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)


# --------------------------------------------------------------------------------------
# The message table
# --------------------------------------------------------------------------------------

# Variable shapes. Namespaces, pod and claim names are DNS names (no spaces, no slash);
# request names may be `parent/sub`; pool names may contain slashes; errors run to the end.
_NAME = r"[^\s/\"',]{1,253}"
_NS_NAME = rf"(?P<namespace>{_NAME})/(?P<claim>{_NAME})"
_REQ = r"(?P<request>[^\s,:]+)"
_ERR = r"(?P<error>.+)"
_CLASS_OR_CLAIM = rf"(?:class (?P<class>[^\s:]{{1,253}})|claim {_NS_NAME})"


@dataclass(frozen=True, slots=True)
class _Pattern:
    code: str
    regex: re.Pattern[str]
    versions: tuple[str, ...] = ALL_VERSIONS
    fatal: bool = False
    source: str = "scheduler"
    literal: str = ""  # text every match contains: a text without it is not searched at all


def _p(
    code: str,
    pattern: str,
    versions: tuple[str, ...] = ALL_VERSIONS,
    *,
    fatal: bool = False,
    source: str = "scheduler",
) -> _Pattern:
    return _Pattern(code, re.compile(pattern, re.DOTALL), versions, fatal, source, required_literal(pattern))


_META = frozenset("\\.^$*+?{}[]()|")
_QUANTIFIERS = frozenset("*+?{")


def required_literal(pattern: str) -> str:
    """The longest run of plain characters at the top level of `pattern` (outside groups and
    classes, not made optional by a quantifier), which every match therefore contains; "" when the
    pattern has a top-level alternation or no such run. Why: a table of ~100 patterns searched in
    order costs ~100 regex scans a text; `literal in text` turns most of them into one memchr."""
    runs: list[str] = []
    run: list[str] = []
    depth = 0
    i = 0

    def cut() -> None:
        if run:
            runs.append("".join(run))
            run.clear()

    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            escaped = pattern[i + 1]
            literal = not escaped.isalnum()  # \. \( \" are characters; \d \S \1 are not
            i += 2
            if depth == 0 and literal and not (i < len(pattern) and pattern[i] in _QUANTIFIERS):
                run.append(escaped)
            else:
                cut()
            continue
        if c == "[":
            i = _class_end(pattern, i)
            cut()
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return ""
        if c in _META or depth > 0:
            if c in _QUANTIFIERS and run:
                run.pop()  # the character before a quantifier may be absent or repeated
            cut()
        elif i + 1 < len(pattern) and pattern[i + 1] in _QUANTIFIERS:
            cut()
        else:
            run.append(c)
        i += 1
    cut()
    return max(runs, key=len, default="")


def _class_end(pattern: str, start: int) -> int:
    """The index after the character class opened at `start` (`[^]x]`, `[\\]]` hold a "]")."""
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


# Order matters: more specific texts come before texts they contain.
_PATTERNS: tuple[_Pattern, ...] = (
    # ---- section 1.4, resource-claim controller (FailedResourceClaimCreation) -------------
    _p(
        "template-not-found",
        r"PodResourceClaim (?P<pod_claim>\S+): resource claim template \"(?P<template>[^\"]+)\": "
        r"resourceclaimtemplate(?:s)?(?:\.resource\.k8s\.io)? \"[^\"]*\" not found",
        source="controller",
    ),
    _p(
        "template-lookup-failed",
        rf"PodResourceClaim (?P<pod_claim>\S+): resource claim template \"(?P<template>[^\"]+)\": {_ERR}",
        source="controller",
    ),
    _p(
        "admin-access-disabled",
        r"PodResourceClaim (?P<pod_claim>\S+): admin access is requested, but the feature is disabled",
        source="controller",
    ),
    _p(
        "claim-create-failed",
        rf"PodResourceClaim (?P<pod_claim>\S+): create ResourceClaim (?P<generate_name>\S+): {_ERR}",
        source="controller",
    ),
    _p(
        "claim-check-failed",
        rf"checking for claim before creating it: {_ERR}",
        source="controller",
    ),
    _p(
        "claim-lookup-failed",
        rf"finding ResourceClaim for claim (?P<pod_claim>\S+) in pod (?P<namespace>{_NAME})/"
        rf"(?P<pod>{_NAME}) failed: {_ERR}",
        source="controller",
    ),
    _p(
        "pod-status-update-failed",
        rf"update pod (?P<namespace>{_NAME})/(?P<pod>{_NAME}) ResourceClaimStatuses: {_ERR}",
        source="controller",
    ),
    # ---- section 1.3, allocator errors (all fatal: SchedulerError) -----------------------
    _p(
        "cel-expression-empty",
        rf"claim {_NS_NAME}, request {_REQ}, selector #(?P<selector>\d+): "
        r"CEL expression empty \(unsupported selector type\?\)",
        fatal=True,
        source="allocator",
    ),
    _p(
        "admin-access-disabled",
        rf"claim {_NS_NAME}, request {_REQ}: admin access is requested, but the feature is disabled",
        fatal=True,
        source="allocator",
    ),
    _p(
        "device-class-name-missing",
        rf"claim {_NS_NAME}, request {_REQ}: missing device class name \(unsupported request type\?\)",
        fatal=True,
        source="allocator",
    ),
    _p(
        "device-class-lookup-failed",
        rf"claim {_NS_NAME}, request {_REQ}: could not retrieve device class (?P<class>\S+?): {_ERR}",
        fatal=True,
        source="allocator",
    ),
    _p(
        "count-too-large",
        rf"claim {_NS_NAME}, request {_REQ}: exact count (?P<count>-?\d+) is too large",
        fatal=True,
        source="allocator",
    ),
    _p(
        "all-mode-pool-incomplete",
        rf"claim {_NS_NAME}, request {_REQ}: asks for all devices, but resource pool "
        r"(?P<driver>[^\s/]+)/(?P<pool>\S+) is currently being updated",
        fatal=True,
        source="allocator",
    ),
    _p(
        "all-mode-pool-invalid",
        rf"claim {_NS_NAME}, request {_REQ}: asks for all devices, but resource pool "
        r"(?P<driver>[^\s/]+)/(?P<pool>\S+) is currently invalid",
        fatal=True,
        source="allocator",
    ),
    _p(
        "unsupported-allocation-mode",
        rf"claim {_NS_NAME}, request {_REQ}: unsupported count mode (?P<mode>\S*)",
        fatal=True,
        source="allocator",
    ),
    _p(
        "claim-limit-exceeded",
        rf"claim {_NS_NAME}: number of requested devices (?P<count>\d+) exceeds the claim limit "
        r"of (?P<limit>\d+)",
        fatal=True,
        source="allocator",
    ),
    _p(
        "empty-constraint",
        rf"claim {_NS_NAME}, constraint #(?P<constraint>\d+): "
        r"empty constraint \(unsupported constraint type\?\)",
        fatal=True,
        source="allocator",
    ),
    # Scheduler PreFilter form: an Unschedulable status, not an error.
    _p(
        "prioritized-list-disabled",
        rf"resource claim {_NS_NAME}, request {_REQ}: has subrequests, but the DRAPrioritizedList "
        r"feature is disabled",
        _FROM_133,
    ),
    _p(
        "prioritized-list-disabled",
        rf"claim {_NS_NAME}, request {_REQ}: has subrequests, but the DRAPrioritizedList feature is disabled",
        _FROM_133,
        fatal=True,
        source="allocator",
    ),
    _p(
        "consumable-capacity-disabled",
        rf"claim {_NS_NAME}, (?:request {_REQ}|subrequest (?P<subrequest>[^\s,:]+)): has capacity "
        r"requests, but the DRAConsumableCapacity feature is disabled",
        _FROM_134,
        fatal=True,
        source="allocator",
    ),
    _p(
        "cel-compile-error",
        rf"{_CLASS_OR_CLAIM}: selector #(?P<selector>\d+): CEL compile error: {_ERR}",
        fatal=True,
        source="allocator",
    ),
    _p(
        "cel-runtime-error",
        rf"{_CLASS_OR_CLAIM}: selector #(?P<selector>\d+): CEL runtime error: {_ERR}",
        fatal=True,
        source="allocator",
    ),
    _p(
        "constraint-all-mode",
        rf"claim {_NS_NAME}, request {_REQ}: cannot add device (?P<driver>[^\s/]+)/(?P<pool>\S+)/"
        r"(?P<device>[^\s/]+) because a claim constraint would not be satisfied",
        fatal=True,
        source="allocator",
    ),
    _p(
        "pool-invalid",
        r"pool (?P<pool>\S+) is invalid: (?P<reason>.+)",
        ("1.32", "1.33", "1.34"),
        fatal=True,
        source="allocator",
    ),
    _p(
        "slice-node-selection-failed",
        rf"gather pool information: (?:failed to perform node selection for slice|add node slice) "
        rf"(?P<slice>[^\s:]+):? {_ERR}",
        fatal=True,
        source="allocator",
    ),
    _p(
        "allocation-aborted",
        rf"filter operation aborted: {_ERR}",
        _FROM_134,
        fatal=True,
        source="allocator",
    ),
    _p(
        "no-allocator",
        r"internal error: no allocator available for feature set(?P<error>.*)",
        _FROM_134,
        fatal=True,
        source="allocator",
    ),
    # ---- section 1.2, DynamicResources plugin -------------------------------------------
    _p(
        "claim-not-created",
        rf"pod \"(?P<namespace>{_NAME})/(?P<pod>{_NAME})\": ResourceClaim not created yet",
    ),
    _p(
        "pod-claim-unsupported",
        rf"pod \"(?P<namespace>{_NAME})/(?P<pod>{_NAME})\", spec\.resourceClaim \"(?P<pod_claim>[^\"]+)\": "
        r"none of the supported fields are set",
    ),
    _p(
        "claim-not-found",
        rf"could not find ResourceClaim \"(?:(?P<namespace>{_NAME})/)?(?P<claim>{_NAME})\"",
    ),
    _p("claim-being-deleted", r"resourceclaim \"(?P<claim>[^\"]+)\" is being deleted"),
    _p(
        "claim-not-owned",
        rf"ResourceClaim {_NS_NAME} was not created for pod (?P<pod_namespace>{_NAME})/(?P<pod>{_NAME}) "
        r"\(pod is not owner\)",
    ),
    _p(
        "claim-allocation-in-flight",
        rf"resource claim {_NS_NAME} is in the process of being allocated",
    ),
    _p(
        "unknown-request-type",
        rf"resource claim {_NS_NAME}, request {_REQ}: unknown request type",
        _FROM_134,
    ),
    _p("device-class-missing", rf"request {_REQ}: device class (?P<class>\S+) does not exist"),
    _p(
        "device-class-lookup-failed",
        rf"request {_REQ}: look up device class: {_ERR}",
        ("1.32",),
        fatal=True,
    ),
    _p("unsupported-request-type", rf"request {_REQ}: unsupported request type", fatal=True),
    _p("claim-in-use", r"resourceclaim in use"),
    _p("cannot-allocate", r"cannot allocate all claims"),
    _p("claim-not-on-node", r"resourceclaim not available on the node"),
    _p("timeout", r"timed out trying to allocate devices", _FROM_134),
    _p("allocation-cancelled", rf"asked by caller to stop allocating devices: {_ERR}", _FROM_134),
    _p("invalid-pools", r"invalid resource pools were encountered", ("1.35",)),
    _p(
        "extended-resource-unschedulable",
        r"cannot schedule extended resource claim|cannot fit resource",
        _FROM_134,
    ),
    _p("still-not-schedulable", r"still not schedulable"),
    _p("claim-deallocated", r"deallocation of ResourceClaim completed"),
    _p("no-claims-to-deallocate", r"no new claims to deallocate"),
    _p("extended-claim-deleted", r"deletion of ResourceClaim completed", _FROM_134),
    _p("plugin-disabled", r"plugin disabled"),
    _p(
        "claim-allocated-elsewhere",
        rf"claim {_NS_NAME} got allocated elsewhere in the meantime",
        fatal=True,
    ),
    _p("claim-deleted-meantime", rf"claim {_NS_NAME} got deleted in the meantime", fatal=True),
    _p(
        "claim-update-failed",
        rf"(?P<operation>add allocation and reservation|add reservation|add finalizer) to claim "
        rf"{_NS_NAME}: {_ERR}",
        fatal=True,
    ),
    _p(
        "binding-conditions-pending",
        r"waiting for binding conditions for device on node (?P<node>\S+)",
        _FROM_134,
    ),
    # PreBind of DynamicResources while it polls the claims' binding conditions (KEP-5007;
    # kubernetes/kubernetes pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go,
    # `isClaimReadyForBinding` and `isPodReadyForBinding`, 1.35/1.36 cycle): a failure condition
    # set True, or the claim's allocationTimestamp + bindingTimeout passed; the scheduler wraps the
    # error as `running PreBind plugin "DynamicResources": ...` (condition reason SchedulerError).
    _p(
        "binding-failed",
        r"claim (?P<claim>[^\s:]+) binding failed: reason=(?P<reason>.*?), message=(?P<message>.*)",
        _FROM_134,
        fatal=True,
    ),
    _p("claim-binding-timeout", r"claim (?P<claim>[^\s:]+) binding timeout", _FROM_134, fatal=True),
    _p("binding-timeout", r"device binding timeout", _FROM_134, fatal=True),
    # ---- section 1.5, API-server validation ---------------------------------------------
    _p(
        "request-shape-invalid",
        r"exactly one of `exactly` or `firstAvailable` is required"
        r"(?P<multiple>, but multiple fields are set)?",
        _FROM_134,
        source="apiserver",
    ),
    _p(
        "constraint-fields-conflict",
        r"exactly one of \"matchAttribute\" or \"distinctAttribute\" is required, "
        r"but multiple fields are set",
        _FROM_134,
        source="apiserver",
    ),
    _p(
        "constraint-attribute-required",
        r"constraints\[(?P<constraint>\d+)\]\.matchAttribute: Required value",
        source="apiserver",
    ),
    _p(
        "device-class-name-required",
        r"deviceClassName: Required value",
        source="apiserver",
    ),
    _p(
        "count-with-all-mode",
        r"must not be specified when allocationMode is 'All'",
        source="apiserver",
    ),
    _p(
        "count-not-positive",
        r"count: Invalid value: (?P<count>-?\d+): must be greater than zero",
        source="apiserver",
    ),
    _p("count-not-positive", r"must be greater than zero", source="apiserver"),
    _p(
        "allocation-mode-unsupported",
        r"allocationMode: Unsupported value: \"(?P<mode>[^\"]*)\"",
        source="apiserver",
    ),
    _p(
        "unknown-request-reference",
        r"must be the name of a request in the claim or the name of a request and a subrequest "
        r"separated by '/'",
        source="apiserver",
    ),
    _p("cel-too-complex", r"too complex, exceeds cost limit", source="apiserver"),
    _p(
        "cel-too-long",
        r"selectors\[(?P<selector>\d+)\]\.cel\.expression: Too long",
        source="apiserver",
    ),
    _p(
        "cel-compile-error",
        r"selectors\[(?P<selector>\d+)\]\.cel\.expression: Invalid value: (?P<error>.+)",
        source="apiserver",
    ),
    _p(
        "admin-access-label-missing",
        r"admin access to devices requires the `(?P<label>[^`:]+): true` label on the containing namespace",
        _FROM_133,
        source="apiserver",
    ),
)


# Kubelet preparation failures: matched by text (the reason alone varies by version).
_KUBELET_MARKERS = re.compile(
    r"prepare dynamic resources|NodePrepareResources|PrepareResources|prepare resource claim"
    r"|DRA driver|DRA plugin|CDI device|unresolvable CDI|cdi\.k8s\.io"
    r"|is not allowed to use resource claim|failed to fetch ResourceClaim",
    re.IGNORECASE,
)


def mentions_claim_preparation(text: str) -> bool:
    """Does a kubelet or runtime text speak of preparing a claim's devices (NodePrepareResources, CDI)?"""
    return bool(text) and (_KUBELET_MARKERS.search(text) is not None or _CLAIM_INFO.search(text) is not None)


# the kubelet's DRA manager when it never prepared a claim the container needs (kubernetes#135901)
_CLAIM_INFO = re.compile(r"unable to get claim info for ResourceClaim")


_KUBELET_REASONS = frozenset({"FailedPrepareDynamicResources", "FailedUnprepareDynamicResources"})
_KUBELET_SANDBOX_REASONS = frozenset(
    {"FailedCreatePodSandBox", "Failed", "FailedSync", "FailedMount", "CreateContainerError"}
)
_KUBELET_FIELDS = (
    re.compile(rf"for claim (?P<namespace>{_NAME})/(?P<claim>{_NAME}):"),
    # A driver name is a DNS subdomain with at least one dot (npu.rebellions.ai, dra.net).
    re.compile(r"(?:driver|DRA plugin|DRA driver) \"?(?P<driver>[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,8})"),
    re.compile(r"unresolvable CDI devices? (?P<cdi_device>\S+)"),
    re.compile(r"failed to fetch ResourceClaim (?P<claim>\S+) referenced by pod"),
)


def _clean(text: str) -> str:
    """Bound the length and fold line breaks, as `kubectl describe` wraps long notes."""
    if not isinstance(text, str):
        text = str(text)
    text = text[:MAX_TEXT]
    if text.isprintable():  # one line (every line break is unprintable): most texts, at C speed
        return text.strip()
    lines = (line.strip() for line in text.splitlines())
    return " ".join(line for line in lines if line)


def _fields(match: re.Match[str]) -> dict[str, str]:
    found = {k: v for k, v in match.groupdict().items() if v is not None}
    if "error" in found:
        found["error"] = found["error"].strip()
    return found


def _enrich(code: str, fields: dict[str, str]) -> None:
    """Pull the variables a check needs out of nested error text."""
    error = fields.get("error", "")
    if code == "cel-runtime-error":
        key = re.search(r"no such key: (?P<attribute>[^\s,;)]+)", error)
        bad = re.search(
            r"attribute (?P<attribute>\S+?): (?:unsupported attribute value|parse semantic version)", error
        )
        if key:
            fields["attribute"] = key.group("attribute")
            fields["kind"] = "no-such-key"
        elif bad:
            fields["attribute"] = bad.group("attribute")
            fields["kind"] = "bad-attribute-value"
        elif "cost limit" in error:
            fields["kind"] = "cost-limit"
        else:
            fields["kind"] = "other"
    elif code == "pool-invalid":
        reason = fields.get("reason", "")
        dup = re.match(r"duplicate device name (?P<device>\S+)", reason)
        if dup:
            fields["device"] = dup.group("device")
    elif code == "claim-create-failed":
        inner = _match_one(error, nested=True)
        if inner is not None:
            fields["cause"] = inner.code


def _match_one(text: str, *, nested: bool = False) -> DraMessage | None:
    for pattern in _PATTERNS:
        if nested and pattern.code == "claim-create-failed":
            continue
        if pattern.literal and pattern.literal not in text:
            continue
        match = pattern.regex.search(text)
        if match is None:
            continue
        fields = _fields(match)
        _enrich(pattern.code, fields)
        fatal = pattern.fatal or _is_wrapped_error(text)
        return DraMessage(pattern.code, text, fields, fatal, pattern.versions, pattern.source)
    return None


_WRAPPED_ERROR = re.compile(
    r"running (?:\"(?P<plugin>[^\"]+)\" filter plugin|PreFilter plugin \"(?P<pf_plugin>[^\"]+)\"): "
)


def _is_wrapped_error(text: str) -> bool:
    return _WRAPPED_ERROR.search(text) is not None


def parse_dra_message(text: str) -> DraMessage | None:
    """Recognize one DRA message (dra-facts.md sections 1.2 to 1.5), or None.

    The message may sit inside a wrapper (`running "DynamicResources" filter plugin: ...`,
    `PodResourceClaim x: ...`, a `0/N nodes are available:` aggregate); the first message
    in table order wins. Kubelet preparation failures are recognized too. Parsed once per distinct
    text (the result is frozen): the same reason recurs in thousands of events.
    """
    if isinstance(text, str):
        return _parse_dra_text(text)
    return _parse_dra_uncached(text)


@lru_cache(maxsize=8192)
def _parse_dra_text(text: str) -> DraMessage | None:
    return _parse_dra_uncached(text)


def _parse_dra_uncached(text: str) -> DraMessage | None:
    try:
        cleaned = _clean(text)
        if not cleaned:
            return None
        if cleaned.endswith(TRUNCATION_SUFFIX):
            cleaned = cleaned[: -len(TRUNCATION_SUFFIX)].rstrip()
        found = _match_one(cleaned)
        if found is not None:
            return found
        return _kubelet_message(cleaned)
    except Exception:  # a diagnosis never dies on an unknown text
        return None


def _kubelet_message(text: str) -> DraMessage | None:
    if not _KUBELET_MARKERS.search(text):
        return None
    fields: dict[str, str] = {}
    for regex in _KUBELET_FIELDS:
        match = regex.search(text)
        if match:
            fields.update({k: v for k, v in match.groupdict().items() if v})
    return DraMessage("kubelet-prepare-failed", text, fields, False, ALL_VERSIONS, "kubelet")


# --------------------------------------------------------------------------------------
# Per-node reasons
# --------------------------------------------------------------------------------------

_TAINT = re.compile(r"untolerated taint(?:\(s\))? \{(?P<taint>[^}]*)\}|had taint \{(?P<old>[^}]*)\}")
_INSUFFICIENT = re.compile(r"^Insufficient (?P<resource>\S+)$")
_PLUGINS = re.compile(r"didn't satisfy plugin\(s\) \[(?P<plugins>[^\]]*)\]")
_PLUGIN_CATEGORY = {
    "DynamicResources": "dra",
    "TaintToleration": "taint",
    "NodeResourcesFit": "resources",
    "NodeAffinity": "affinity",
    "InterPodAffinity": "affinity",
    "PodTopologySpread": "affinity",
    "NodeUnschedulable": "unschedulable",
}
_UNSCHEDULABLE_TAINTS = ("node.kubernetes.io/unschedulable",)


def classify_reason(count: int, text: str) -> NodeReason:
    """Put one per-node reason into a category a user recognizes (dra, taint, resources...): once
    per distinct text (the count varies from note to note, the reasons seldom do)."""
    if not isinstance(text, str):
        return _classify_reason(count, text)
    reason = _reason_of_text(text)
    if reason.count == count:
        return reason
    return NodeReason(count, reason.text, reason.category, reason.resource, reason.taint, reason.dra)


@lru_cache(maxsize=4096)
def _reason_of_text(text: str) -> NodeReason:
    return _classify_reason(0, text)


def _classify_reason(count: int, text: str) -> NodeReason:
    text = text.strip()
    dra = parse_dra_message(text)
    if dra is not None and dra.source != "kubelet":
        return NodeReason(count, text, "dra", dra=dra)
    taint = _TAINT.search(text)
    if taint:
        value = (taint.group("taint") if taint.group("taint") is not None else taint.group("old")) or ""
        key = value.split(":", 1)[0].strip()
        category = "unschedulable" if key in _UNSCHEDULABLE_TAINTS else "taint"
        return NodeReason(count, text, category, taint=value.strip())
    if text.startswith("node(s) had untolerated taint"):
        return NodeReason(count, text, "taint")
    insufficient = _INSUFFICIENT.match(text)
    if insufficient:
        return NodeReason(count, text, "resources", resource=insufficient.group("resource"))
    if text == "Too many pods":
        return NodeReason(count, text, "resources", resource="pods")
    if text.startswith("node(s) were unschedulable"):
        return NodeReason(count, text, "unschedulable")
    if "affinity" in text or "topology spread" in text or "node selector" in text:
        category = "other" if "volume node affinity" in text else "affinity"
        return NodeReason(count, text, category)
    plugins = _PLUGINS.search(text)
    if plugins:
        names = [name.strip() for name in plugins.group("plugins").split(",") if name.strip()]
        categories = {_PLUGIN_CATEGORY.get(name, "other") for name in names}
        category = "dra" if "dra" in categories else (categories.pop() if len(categories) == 1 else "other")
        return NodeReason(count, text, category)
    return NodeReason(count, text, "other")


# --------------------------------------------------------------------------------------
# The FailedScheduling aggregate
# --------------------------------------------------------------------------------------

_AVAILABLE = re.compile(r"(?P<available>\d+)/(?P<total>\d+) nodes are available:?\s*")
_ENTRY_START = re.compile(r"\d+ \S")
_POSTFILTER_STARTS = (
    "still not schedulable",
    "preemption:",
    "deallocation of ResourceClaim completed",
    "no new claims to deallocate",
    "deletion of ResourceClaim completed",
    "plugin disabled",
    "Preemption is not helpful",
    "No preemption victims found",
)
_OPEN = "{[("
_CLOSE = "}])"


def _split_histogram(body: str) -> list[tuple[int, str]]:
    """Split `K reason, K reason` at ", " followed by a count, outside braces and brackets.

    A reason may contain ", " itself (an old taint text, a plugin list), which is why a plain
    split is wrong. The scan visits brackets and split points only (found by one regex), never
    each character: a long note costs what its punctuation costs.
    """
    if not any(c in body for c in _OPEN):  # nothing nests: every split point counts (C speed)
        return _histogram_entries(_HISTOGRAM_SPLIT.split(body))
    entries: list[str] = []
    depth = 0
    start = 0
    for token in _HISTOGRAM_TOKENS.finditer(body):
        mark = token.group()
        if mark in _OPEN:
            depth += 1
        elif mark in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0:
            entries.append(body[start : token.start()])
            start = token.end()
    entries.append(body[start:])
    return _histogram_entries(entries)


_HISTOGRAM_TOKENS = re.compile(r"[{}\[\]()]|, (?=\d+ \S)")
_HISTOGRAM_SPLIT = re.compile(r", (?=\d+ \S)")


def _histogram_entries(entries: list[str]) -> list[tuple[int, str]]:
    result: list[tuple[int, str]] = []
    for entry in entries:
        entry = entry.strip()
        if not entry:
            continue
        count, _, reason = entry.partition(" ")
        if count.isdigit() and reason:
            result.append((int(count), reason.strip()))
        elif result:  # a stray piece: glue it to the previous reason rather than lose it
            prev_count, prev = result[-1]
            result[-1] = (prev_count, f"{prev}, {entry}")
        else:
            result.append((0, entry))
    return result


_TAIL_TOKENS = re.compile(r"[{}\[\]()]|\. ")


def _split_body_tail(rest: str) -> tuple[str, str | None]:
    """Separate the `<histogram>.` (or `<PreFilterMsg>.`) part from the PostFilter tail."""
    best: int | None = None
    for start in _POSTFILTER_STARTS:
        index = rest.find(". " + start)
        if index >= 0 and (best is None or index < best):
            best = index
    if best is None:  # the first ". " outside brackets, found among the brackets and stops only
        depth = 0
        for token in _TAIL_TOKENS.finditer(rest):
            mark = token.group()
            if mark in _OPEN:
                depth += 1
            elif mark in _CLOSE:
                depth = max(0, depth - 1)
            elif depth == 0:
                best = token.start()
                break
    if best is None:
        return rest.rstrip().removesuffix("."), None
    tail = rest[best + 2 :].strip()
    return rest[:best], tail or None


def _parse_postfilter(tail: str, message: SchedulingMessage) -> None:
    message.postfilter = tail
    head, sep, preemption = tail.partition("preemption:")
    for piece in head.split(","):
        found = parse_dra_message(piece.strip().rstrip("."))
        if found is not None:
            message.dra.append(found)
    if sep:
        inner = _AVAILABLE.search(preemption)
        body = preemption[inner.end() :] if inner else preemption
        body = body.strip().removesuffix(".")
        message.preemption = [classify_reason(c, r) for c, r in _split_histogram(body)]


def parse_scheduling_message(text: str) -> SchedulingMessage:
    """Parse a FailedScheduling event note or a PodScheduled condition message.

    Handles the histogram form, the PreFilter form, the PostFilter tail, the scheduler-error
    forms (`running "DynamicResources" filter plugin: ...`, `running PreFilter plugin ...`),
    the `kubectl describe` line wrapping, and event notes truncated with " ...".
    """
    raw = text if isinstance(text, str) else str(text)
    return _copy(_scheduling_text(raw))


@lru_cache(maxsize=4096)
def _scheduling_text(raw: str) -> SchedulingMessage:
    """Parsed once per distinct text (a FailedScheduling note repeats in every retry's event);
    callers get copies (`_copy`): a message is a mutable record."""
    message = SchedulingMessage(text=raw)
    # Never let an odd text break the diagnosis: a partial result is still evidence.
    with contextlib.suppress(Exception):
        _parse_into(_clean(raw), message)
    return message


def _copy(m: SchedulingMessage) -> SchedulingMessage:
    return SchedulingMessage(
        m.text,
        m.total_nodes,
        list(m.reasons),
        m.prefilter,
        m.postfilter,
        list(m.preemption),
        m.scheduler_error,
        m.error_plugin,
        list(m.dra),
        m.truncated,
    )


def _parse_into(cleaned: str, message: SchedulingMessage) -> None:
    if cleaned.endswith(TRUNCATION_SUFFIX) or cleaned == "...":
        message.truncated = True
        cleaned = cleaned[: -len(TRUNCATION_SUFFIX)].rstrip() if cleaned != "..." else ""
    wrapped = _WRAPPED_ERROR.search(cleaned)
    if wrapped:
        message.error_plugin = wrapped.group("plugin") or wrapped.group("pf_plugin")
        message.scheduler_error = cleaned[wrapped.end() :].strip()
        found = parse_dra_message(cleaned[wrapped.start() :])
        if found is not None:
            message.dra.append(found)
        return
    available = _AVAILABLE.search(cleaned)
    if available is None:
        found = parse_dra_message(cleaned)
        if found is not None:
            message.dra.append(found)
        return
    message.total_nodes = int(available.group("total"))
    rest = cleaned[available.end() :]
    body, tail = _split_body_tail(rest)
    body = body.strip()
    if body and not _ENTRY_START.match(body):
        message.prefilter = body
        found = parse_dra_message(body)
        if found is not None:
            message.dra.append(found)
    elif body:
        for count, reason in _split_histogram(body):
            node_reason = classify_reason(count, reason)
            message.reasons.append(node_reason)
            if node_reason.dra is not None:
                message.dra.append(node_reason.dra)
    if tail:
        _parse_postfilter(tail, message)


def parse_pod_scheduled(condition: Condition) -> SchedulingMessage:
    """Parse the PodScheduled condition: same text as the event, never truncated.

    A `SchedulerError` reason marks the whole text as a scheduler error even when the wrapper
    prefix is missing, so that a check never reads it as a fit error.
    """
    message = parse_scheduling_message(condition.message or "")
    if condition.reason == "SchedulerError" and message.scheduler_error is None:
        message.scheduler_error = _clean(condition.message or "")
    return message


# --------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------

_BACKOFF = re.compile(r"Back-off restarting failed container (?P<container>\S+)(?: in pod (?P<pod>\S+))?")


def classify_event(event: Event) -> ParsedEvent:
    """Dispatch on the event's reason and return its parsed structure: the parse depends on the
    reason and the message only, so one parse serves every event (and every call) with that pair."""
    try:
        reason, text = event.reason or "", event.message or ""
        if isinstance(reason, str) and isinstance(text, str):
            parsed = _classify_text(reason, text)
        else:
            parsed = _classify(reason, text)
        kind, scheduling, dra, fields = parsed
        return ParsedEvent(kind, event, _copy(scheduling) if scheduling else None, list(dra), dict(fields))
    except Exception:  # same promise as parse_scheduling_message
        return ParsedEvent("other", event)


_Parsed = tuple[str, SchedulingMessage | None, tuple[DraMessage, ...], dict[str, str]]


@lru_cache(maxsize=4096)
def _classify_text(reason: str, text: str) -> _Parsed:
    return _classify(reason, text)


def _classify(reason: str, text: str) -> _Parsed:
    """(kind, scheduling message, DRA messages, fields) of an event with this reason and message."""
    if reason == "FailedScheduling":
        scheduling = _scheduling_text(text if isinstance(text, str) else str(text))  # shared: copied out
        return "scheduling", scheduling, tuple(scheduling.dra), {}
    if reason == "FailedResourceClaimCreation":
        found = parse_dra_message(text)
        pod_claim = re.match(r"\s*PodResourceClaim (?P<pod_claim>\S+):", text)
        fields = {"pod_claim": pod_claim.group("pod_claim")} if pod_claim else {}
        return "claim-creation", None, (found,) if found is not None else (), fields
    if reason in _KUBELET_REASONS or (reason in _KUBELET_SANDBOX_REASONS and _KUBELET_MARKERS.search(text)):
        cleaned = _clean(text)
        found = _kubelet_message(cleaned) or DraMessage(
            "kubelet-prepare-failed", cleaned, {}, False, ALL_VERSIONS, "kubelet"
        )
        return "kubelet", None, (found,), dict(found.fields)
    if reason == "BackOff":
        match = _BACKOFF.search(text)
        fields = {k: v for k, v in match.groupdict().items() if v} if match else {}
        return "backoff", None, (), fields
    found = parse_dra_message(text)
    return "other", None, (found,) if found is not None else (), {}
