"""Deterministic synthetic clusters (bundles) for tests, examples and benchmarks.

`ClusterBuilder(seed, api_version, knobs)` emits the objects `kubectl get -o json` would print for
a cluster of Rebellions NPU nodes with RoCE NICs; `Knobs` switches on one failure mode at a time;
`scenarios.SCENARIOS` names the stories a diagnosis is tested against.
"""

from testing.synthetic.builder import (
    API_VERSIONS,
    RECIPES,
    ClusterBuilder,
    Knobs,
    build_cluster,
    dumps_bundle,
    fit_error_message,
    recipe_spec,
    to_api_shape,
    to_list,
    write_bundle,
    write_bundle_stream,
)

__all__ = [
    "API_VERSIONS",
    "RECIPES",
    "ClusterBuilder",
    "Knobs",
    "build_cluster",
    "dumps_bundle",
    "fit_error_message",
    "recipe_spec",
    "to_api_shape",
    "to_list",
    "write_bundle",
    "write_bundle_stream",
]
