"""kubectl's spellings of flags that click would otherwise misread.

pflag (kubectl's flag parser) takes `-o=json` as `-o json`, and a boolean flag as `--flag=true` or
`--flag=false`; click reads `-o=json` as the value `=json` ("'=json' is not one of ...") and refuses a
value on a flag. Every command's arguments pass through `kubectl_style` first, so the habits work.
"""

from __future__ import annotations

import re

_SHORT_WITH_EQUALS = re.compile(r"-([A-Za-z])=(.*)", re.DOTALL)
# the boolean flags of every command that kubectl spells with a value too
BOOLEAN_FLAGS = frozenset(
    {"--insecure-skip-tls-verify", "--all-namespaces", "--all-contexts", "--raw-output"}
)
_TRUE = frozenset({"true", "1", "t", "yes"})
_FALSE = frozenset({"false", "0", "f", "no"})


def kubectl_style(args: list[str]) -> list[str]:
    """`-o=json` -> `-o json`, `--insecure-skip-tls-verify=true` -> the flag, `=false` -> nothing;
    everything after `--` is left alone."""
    out: list[str] = []
    for index, arg in enumerate(args):
        if arg == "--":
            return out + args[index:]
        short = _SHORT_WITH_EQUALS.fullmatch(arg)
        if short:
            out += [f"-{short.group(1)}", short.group(2)]
            continue
        name, equals, value = arg.partition("=")
        if equals and name in BOOLEAN_FLAGS and value.lower() in _TRUE | _FALSE:
            if value.lower() in _TRUE:
                out.append(name)
            continue
        out.append(arg)
    return out
