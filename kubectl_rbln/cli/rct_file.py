"""An RCT given as a file (`--with-rct`, `--rct-file`): read, one template, normalized."""

from __future__ import annotations

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.dra.model import ResourceClaimTemplate
from kubectl_rbln.dra.normalize_claims import normalize_template
from kubectl_rbln.errors import InputError


def load_rct_file(path: str, flag: str = "--with-rct") -> ResourceClaimTemplate:
    """The one template of `path`; one the API server would refuse (`count: 1.5`) is an input error."""
    templates = [o for o in load_objects([path]) if o.get("kind") == "ResourceClaimTemplate"]
    if len(templates) != 1:
        raise InputError(f"{flag} {path}: expected one ResourceClaimTemplate, found {len(templates)}")
    template = normalize_template(templates[0])
    if template.spec.impossible:  # a count or quantity the API server refuses: no RCT it would store
        raise InputError(f"{flag} {path}: {template.spec.impossible[0]}")
    return template
