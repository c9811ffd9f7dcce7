"""Reuse the end-to-end harness (replay server with its no-write check, real kubectl) for pod-devices."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_E2E = Path(__file__).resolve().parent.parent / "e2e" / "conftest.py"
_spec = importlib.util.spec_from_file_location("rbln_e2e_harness", _E2E)
assert _spec is not None and _spec.loader is not None
_harness = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _harness  # dataclasses look their module up there
_spec.loader.exec_module(_harness)

replay_server = _harness.replay_server
kubeconfig_for = _harness.kubeconfig_for
kubectl_for = _harness.kubectl_for
find_kubectl = _harness.find_kubectl
