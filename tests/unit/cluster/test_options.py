"""SourceOptions: what the source layer needs from the command line, nothing else."""

from __future__ import annotations

import dataclasses

import pytest

from kubectl_rbln.cluster.options import SourceOptions


def test_defaults_read_the_current_context_with_a_30s_timeout():
    opts = SourceOptions()
    assert (opts.kubeconfig, opts.context, opts.namespace, opts.all_namespaces) == (None, None, None, False)
    assert opts.request_timeout == 30.0
    assert not opts.offline


def test_files_make_it_offline():
    assert SourceOptions(filenames=("dump.json",)).offline
    assert SourceOptions(filenames=("-",)).offline
    assert not SourceOptions(filenames=()).offline


def test_options_are_immutable_and_hashable():
    opts = SourceOptions(namespace="ml")
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.namespace = "other"  # type: ignore[misc]
    assert hash(opts) == hash(SourceOptions(namespace="ml"))
    assert "output" not in {f.name for f in dataclasses.fields(SourceOptions)}  # no CLI-only business
