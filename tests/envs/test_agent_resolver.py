"""The envs' opponents: an agent object is played as it is; a spec string or a callable goes to the
agent resolver that the package's root injects into the envs (the envs import no agent, by name
or otherwise: tests/integration/test_layers.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mancala_envs.envs import common
from mancala_envs.envs.common import register_agent_resolver
from mancala_envs.envs.gym_vector import MancalaVectorEnv
from mancala_envs.envs.single import SingleAgentEnv


class FirstLegal:
    """An agent: the first legal hole."""

    def act(self, game, state):
        return game.legal_actions(state)[0]

    def act_batch(self, game, states):
        return game.legal_masks(states).argmax(axis=1)


@pytest.fixture
def no_resolver():
    previous = register_agent_resolver(None)
    yield
    register_agent_resolver(previous)


def test_a_spec_opponent_works_in_a_fresh_interpreter_that_imported_only_an_env():
    code = (
        "import sys\n"
        "from mancala_envs.envs.single import SingleAgentEnv\n"
        "assert 'mancala_envs.agents' not in sys.modules\n"
        "env = SingleAgentEnv('songo_ewondo', opponent='minimax:depth=1')\n"
        "print(type(env.opponent).__name__, 'mancala_envs.agents' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["MinimaxAgent", "True"]


def test_the_injected_resolver_builds_the_opponents_of_every_env():
    calls = []

    def resolver(opponent, seed, batched_callable):
        calls.append((opponent, batched_callable))
        return FirstLegal()

    previous = register_agent_resolver(resolver)
    try:
        assert callable(previous)  # the root's, handed back to be put back
        SingleAgentEnv("songo_ewondo", opponent="my-spec").reset(seed=0)
        MancalaVectorEnv("songo_ewondo", 2, opponent="another-spec")
    finally:
        assert register_agent_resolver(previous) is resolver
    assert calls == [("my-spec", False), ("another-spec", True)]


def test_without_a_resolver_an_agent_still_plays_and_a_spec_is_refused(no_resolver):
    env = SingleAgentEnv("songo_ewondo", opponent=FirstLegal(), seat=1)
    env.reset(seed=0)
    assert env.state.ply == 1  # the opponent moved first
    with pytest.raises(ValueError, match="register_agent_resolver"):
        SingleAgentEnv("songo_ewondo", opponent="greedy")


def test_agent_provider_is_kept_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="AGENT_PROVIDER"):
        assert common.AGENT_PROVIDER == "mancala_envs.agents"
