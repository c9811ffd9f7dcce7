"""Finds English prose in a Korean output: what a Korean operator would read as untranslated.

What may stay English in a Korean output, and nothing else:

- names: a token with `.`, `/`, `=`, `-`, `_`, a digit, inner capitals or all capitals
  (npu-node-01, dra.net/rdma, pciSubsystem, NPU), a single letter (the drawing's holders A, B),
  a placeholder `<rct>`, a quoted literal (`"in"`), code in backticks, a JSON or YAML key (`"value":`
  in a value, `mode:` in a file a fix writes), a cut word (`allocate…`), a flag's value (`-o wide`);
- commands: a line that is a command (`kubectl ...`), an inline command up to its end;
- the scenario's own texts: any run of two or more words found verbatim in a string of the input
  bundle or of the shipped recipes (event and condition messages, logs, CEL expressions), and any
  word that is a whole string there (a request name `nic`, a namespace `serving`);
- Kubernetes messages the tool quotes in Kubernetes' words without an object holding them (the
  scheduler's per-node texts): KUBERNETES_MESSAGES, each from dra-facts.md section 1;
- the names of products, documents and settings: PROPER_NAMES;
- the terms the Korean product document (seed 001) and Korean Kubernetes usage keep in English: TERMS.

Any other plain English word is prose a translator should have translated. A bundle's text may
wrap over lines (wrapping breaks at spaces), so the check reads across line ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from kubectl_rbln.catalog.fill import COMMAND_WORDS

HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]+")
EDGE = "()[]{},.;:\"'`…!?<>|#→*"
WORD = re.compile(r"^(?:a|[a-z]{2,}|[A-Z][a-z]+)$")  # plain: no digit, no inner capital, no symbol
SUBCOMMANDS = frozenset(
    ("why", "check", "attrs", "topo", "suggest-rct", "pod-devices", "dump", "serve", "explain")
)

# Kept in English by the Korean product document (seed 001: Pod, Pending, feature gate, spec, values,
# apply, backend, extended resource, selectors, constraints, allocated...), Kubernetes' object
# states and field values, and the Kubernetes terms Korean Kubernetes documentation keeps as they
# are (taint, toleration, finalizer, sandbox, binding conditions, extender, cordon).
TERMS = frozenset(
    {
        "pod", "pods", "pending", "running", "terminating", "unschedulable", "succeeded", "failed", "feature",
        "gate",
        "gates", "helm", "install", "values", "spec", "backend", "extended", "resource", "unverified",
        "apply", "selectors", "constraints", "allocated", "exactly", "data", "parallel",
        "kubernetes", "modelserver", "prefill", "decode", "dranet", "containerd", "kubelet", "kubeadm",
        "systemd", "memlock", "unlimited", "root", "true", "false", "sudo", "crictl", "warning", "normal",
        "int", "bool", "string", "quantity", "version",
        "taint", "taints", "toleration", "tolerations", "finalizer", "sandbox", "binding", "entrypoint",
        "extender", "cordon", "uncordon", "tmpfs", "broadcom", "equal", "exists", "filter", "tensor",
        "pipeline", "dra",  # the chart values: `tensor 2 x pipeline 1`, `devices.npu.mode: dra`
    }
)  # fmt: skip

# Names of products, documents and settings, kept as their owners write them.
PROPER_NAMES = (
    r"RBLN NPU DRA\s+Driver",
    r"RBLN NPU Operator",
    r"RBLN Driver",
    r"Rebellions Direct Storage",
    r"RDS\s+Support",
    r"Coding\s+Assistant",
    r"base\s+runtime\s+spec",
)

# The scheduler's and the allocator's texts the tool shows in Kubernetes' words without an object
# holding them (dra-facts.md 1.1-1.5): a per-node status, an allocator error, a PreEnqueue reject.
KUBERNETES_MESSAGES = (
    r"(?:\d+ )?cannot allocate all claims",
    r"node\(s\) had untolerated taint \{[^}]*\}?",
    r"node\(s\) were unschedulable",
    r"node\(s\) didn't match Pod's node affinity/selector",
    r"resourceclaim not available on the node",
    r"resourceclaim \S+ is being deleted",
    r"resourceclaim is being deleted",
    r"(?:\d+ )?Insufficient \S+",
    r"cannot fit resource",
    r"claim \S+, request \S+: could not retrieve(?: device class \S+: \S+ \S+ not found)?",
    r"status\.reservedFor: Too many(?:: \d+: must have at most \d+ items)?",
    r"deallocation of ResourceClaim completed",
    r"ResourceClaim not created yet",
    r"request \S+: device class \S+ does not exist",
    r"PodResourceClaim \S+: resource claim template \S+: resourceclaimtempl\S*(?: \S+ not found)?",
    r"claim \S+: selector #\d+: CEL runtime error: [^\"\n]*",
    r"running (?:PreBind|\"DynamicResources\" filter) plugin",
)

# Words inside fix lines (`해결:` blocks), whose texts another change rewrites: reported, not failed.
FIX_TEXT_OWNED_ELSEWHERE: frozenset[str] = frozenset()

SPANS = re.compile(
    "|".join(
        [r"`[^`\n]*(?:\n[^`\n]*)?`", r"<[^<>\s]+>", r'"in"']  # code, a placeholder, CEL's `in` operator
        # a name or a message may wrap, also inside a `# ...` comment of a fix block
        + [
            p.replace(r"\s+", " ").replace(" ", r"\s+(?:#\s+)?")
            for p in (*KUBERNETES_MESSAGES, *PROPER_NAMES)
        ]
    )
)


def corpus(objects: Iterable[Any]) -> tuple[str, frozenset[str]]:
    """(every string of the bundle and the recipes joined, the strings that are one word)."""
    from kubectl_rbln.domain import CHART_RECIPES
    from kubectl_rbln.recipes import recipe_devices

    texts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                texts.append(str(key))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(list(objects))
    walk([recipe_devices(recipe) for recipe in CHART_RECIPES])
    flat = "\n".join(" ".join(t.split()) for t in texts)
    return flat, frozenset(t for t in texts if " " not in t)


def is_name(token: str) -> bool:
    word = token.strip(EDGE)
    return not word or not WORD.match(word) or bool(re.match(r'^"?[A-Za-z]+":$', token))


def _is_command(text: str) -> bool:
    text = re.sub(r"^(해결:|fix:)\s*", "", text.strip())
    return text.split(" ", 1)[0] in COMMAND_WORDS or text.startswith(("--", "[", "resourceName:"))


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def fix_lines(lines: list[str]) -> set[int]:
    """The lines of `해결:` blocks: the label's line and the deeper-indented lines under it."""
    out: set[int] = set()
    indent = None
    for number, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if stripped.startswith(("해결:", "해결 ")) or stripped == "해결":
            indent = len(line) - len(stripped)
            out.add(number)
        elif indent is not None and line.strip() and len(line) - len(stripped) > indent:
            out.add(number)
        else:
            indent = None
    return out


def _tokens(text: str) -> list[tuple[str, int, bool]]:
    """(token, line number, in a fix block) of every line that is not a command; Hangul splits."""
    text = text.replace('\\"', '"')
    fixes = fix_lines(text.splitlines())
    lines = SPANS.sub(_blank, text).splitlines()
    out: list[tuple[str, int, bool]] = []
    for number, line in enumerate(lines):
        if _is_command(line):
            continue
        if number in fixes and re.match(r"^\s*(#\s*)?[\w.-]+:( |$)", line.replace("해결:", "")):
            line = re.sub(r"^(\s*(?:해결:\s*)?(?:#\s*)?)[\w.-]+:", r"\1", line)  # a YAML key in a file
        out += [(token, number, number in fixes) for token in HANGUL.sub(" ", line).split()]
    return out


def english_words(text: str, bundle: tuple[str, frozenset[str]] = ("", frozenset())) -> list[str]:
    """Each run of English prose words (joined) that is none of the allowed kinds above."""
    return [run for run, _ in english_runs_at(text, bundle)]


def english_runs_at(text: str, bundle: tuple[str, frozenset[str]]) -> list[tuple[str, int]]:
    """Each run of English prose words and the line it is on."""
    flat, atoms = bundle
    tokens = _tokens(text)
    words = [token for token, _, _ in tokens]
    found: list[tuple[str, int]] = []
    run: list[str] = []
    at = [0, False]
    in_command = False
    i = 0

    def close() -> None:
        phrase = " ".join(run)
        if run and not (at[1] and phrase in FIX_TEXT_OWNED_ELSEWHERE):
            found.append((phrase, int(at[0])))
        run.clear()

    while i < len(tokens):
        token, line, in_fix = tokens[i]
        same_line = i > 0 and tokens[i - 1][1] == line
        if not same_line:
            close()
            in_command = False
        bare = token.strip(EDGE)
        previous = tokens[i - 1][0].strip(EDGE) if same_line else ""
        following = tokens[i + 1][0] if i + 1 < len(tokens) and tokens[i + 1][1] == line else ""
        if bare in COMMAND_WORDS:  # an inline command runs to its `:` `,` `;` or `)`
            in_command = True
        if in_command:
            in_command = not re.search(r"[:,;)'`]$|\)", token)
            close()
            i += 1
            continue
        allowed = (
            is_name(token)
            or bare.lower() in TERMS
            or bare in atoms
            or bare in SUBCOMMANDS
            or "…" in token
            or following.startswith("…")  # a cut word: what it was is not shown
            or re.match(r"^-[a-z]$|^--[a-z-]+$", previous) is not None  # a flag's value: `-o wide`
        )
        if allowed:
            close()
            i += 1
            continue
        covered = _covered(words, i, flat)
        if covered:
            close()
            i += covered
            continue
        run.append(bare)
        at[0], at[1] = line, in_fix
        i += 1
    close()
    return found


def _covered(tokens: list[str], start: int, flat: str) -> int:
    """How many tokens from `start` (two or more) are one verbatim text of the bundle; 0 if none."""
    if not flat:
        return 0
    best = 0
    for begin in range(start, max(-1, start - 6), -1):  # the text may start at a name before this word
        end = start + 1
        while end < len(tokens) and _in(" ".join(tokens[begin : end + 1]).strip(EDGE), flat):
            end += 1
        if end - begin >= 2 and _in(" ".join(tokens[begin:end]).strip(EDGE), flat):
            best = max(best, end - start)
    return best


def _in(window: str, flat: str) -> bool:
    """`window` in `flat` as whole words (`not a` is not in `cannot allocate`)."""
    if window not in flat:
        return False
    return re.search(r"(?<![\w])" + re.escape(window) + r"(?![\w])", flat) is not None


# A particle typed after a Korean word takes the form its last syllable asks for: 으로 and 을, 은
# after a final consonant (받침), 로, 를, 와 after a vowel (로 also after ㄹ). A hand-typed 으로 after a
# vowel ("레플리카으로") or 를 after a consonant reads as a typo to a Korean reader. Only the forms
# no Korean word ends in are checked (는, 가, 과 end verbs and nouns: 있는, 추가, 초과); the few
# words that do end in a checked form are listed.
_PARTICLE_AFTER = (  # (a Korean word, then a particle; the finals it is wrong after; what fits there)
    (re.compile(r"([가-힣])으로"), ("vowel", "ㄹ"), "로"),
    (re.compile(r"([가-힣])로(?![가-힣])"), ("consonant",), "으로"),
    (re.compile(r"([가-힣])을(?![가-힣])"), ("vowel",), "를"),
    (re.compile(r"([가-힣])은(?![가-힣])"), ("vowel",), "는"),
    (re.compile(r"([가-힣])를(?![가-힣])"), ("consonant", "ㄹ"), "을"),
    (re.compile(r"([가-힣])와(?![가-힣])"), ("consonant", "ㄹ"), "과"),
)
_WORDS_ENDING_SO = frozenset({"나은", "이은", "경로"})  # 나은 (better), 이은 (joined), 경로 (path)


def misfit_particles(text: str) -> list[str]:
    """Each particle after a Korean word that does not fit the word's last sound, with its context."""
    found = []
    for pattern, wrong_after, fit in _PARTICLE_AFTER:
        for match in pattern.finditer(text):
            final = (ord(match.group(1)) - 0xAC00) % 28  # 0: no final consonant, 8: ㄹ
            ends = "vowel" if final == 0 else ("ㄹ" if final == 8 else "consonant")
            if ends in wrong_after and match.group(0) not in _WORDS_ENDING_SO:
                start = max(0, match.start() - 12)
                found.append(f"{text[start : match.end()]!r}: {match.group(0)} → {match.group(1)}{fit}")
    return found


# The same for a particle typed after the product document's English words, each read as a Korean
# engineer says it (NIC 닉, Pod 파드, RCT 알시티, kubelet 큐블릿): "" for a vowel, "ㄹ", or "consonant".
NAMES_READ = {
    "NIC": "consonant", "NPU": "vowel", "Pod": "vowel", "RCT": "vowel", "DeviceClass": "vowel",
    "ResourceSlice": "vowel", "ResourceClaim": "consonant", "ResourceClaimTemplate": "consonant",
    "DeviceTaintRule": "ㄹ", "dranet": "consonant", "kubelet": "consonant", "spec": "consonant",
    "Secret": "consonant", "taint": "vowel", "toleration": "consonant", "Node": "vowel",
    "Event": "vowel", "containerd": "vowel", "CDI": "vowel", "NRI": "vowel", "NUMA": "vowel",
    "RDMA": "vowel", "RDS": "vowel", "DRA": "vowel", "CEL": "ㄹ", "API": "vowel", "JSON": "consonant",
    "YAML": "ㄹ", "Helm": "consonant", "LMCache": "vowel", "NIXL": "ㄹ", "Kubernetes": "vowel",
    "DaemonSet": "consonant", "StatefulSet": "consonant", "Deployment": "vowel", "HCA": "vowel",
}  # fmt: skip
_PAIRS = {"을": ("을", "를"), "를": ("을", "를"), "이": ("이", "가"), "가": ("이", "가"),
          "은": ("은", "는"), "는": ("은", "는"), "과": ("과", "와"), "와": ("과", "와")}  # fmt: skip
_AFTER_NAME = re.compile(
    r"(?<![A-Za-z0-9_./`-])(" + "|".join(sorted(NAMES_READ, key=len, reverse=True)) + r")"
    r"(으로|로|을|를|이|가|은|는|과|와)(?![가-힣])"
)


def misfit_after_names(text: str) -> list[str]:
    """Each particle typed after one of NAMES_READ that does not fit how the name is said."""
    found = []
    for match in _AFTER_NAME.finditer(text):
        name, typed = match.groups()
        ends = NAMES_READ[name]
        if typed in ("으로", "로"):
            fit = "로" if ends in ("vowel", "ㄹ") else "으로"
        else:
            fit = _PAIRS[typed][1 if ends == "vowel" else 0]
        if typed != fit:
            found.append(f"{name}{typed} → {name}{fit}")
    return found
