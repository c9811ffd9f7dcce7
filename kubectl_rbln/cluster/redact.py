"""Credentials out of every message about a cluster: URL userinfo masked, known secrets replaced.

Why: a kubeconfig `server: https://admin:hunter2@10.0.0.1:6443` is legal, and the server URL is in
most cluster errors ("cannot reach the cluster at ..."); a library or a server may also echo a
bearer token or a password back in its error text. Every message built from such text goes
through `redact` before it is raised, warned or recorded in a bundle.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"
# scheme://userinfo@ : `user:password@` keeps the user, a lone `token@` is all secret
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<info>[^/?#@\s]+)@")


def _masked(match: re.Match[str]) -> str:
    user, colon, _ = match.group("info").partition(":")
    return f"{match.group('scheme')}{user + ':' if colon else ''}{MASK}@"


def mask_userinfo(text: str) -> str:
    """`https://user:pass@host` -> `https://user:***@host`, `https://token@host` -> `https://***@host`."""
    return _USERINFO.sub(_masked, text) if "@" in text else text


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` without URL credentials and without any of `secrets` (a token, a password) verbatim."""
    for secret in secrets:
        if secret and len(secret) >= 4:  # a 1-3 character "secret" would mask ordinary words
            text = text.replace(secret, MASK)
    return mask_userinfo(text)
