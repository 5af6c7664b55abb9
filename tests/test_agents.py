"""Integration tests of the built-in agents with the interaction loop: both protocols, both modes, all agents."""
import numpy as np
import pytest
from colosseum_nb.mdp.river_swim import RiverSwimEpisodic, RiverSwimContinuous
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.agent.agents import AGENTS, BENCHMARKED_AGENTS
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop

MDPS = {True: RiverSwimEpisodic(seed=1, size=4, p_rand=0.1, make_reward_stochastic=True),
        False: RiverSwimContinuous(seed=1, size=4, p_rand=0.1, make_reward_stochastic=True)}
T = 600

def _accepts_reference(cls):
    import inspect
    return 'reference_compatible' in inspect.signature(cls.__init__).parameters

CASES = [(n, ref) for n, c in AGENTS.items() for ref in ((False, True) if _accepts_reference(c) else (False,))]

@pytest.mark.parametrize('name,ref', CASES)
def test_numba_and_python_paths_agree(name, ref):
    "The compiled loop and the Python loop give the same logs for every agent (same seed, same decisions)."
    cls = AGENTS[name]; mdp = MDPS[cls.is_episodic()]; spec = make_mdp_spec(mdp, cls)
    kw = dict(reference_compatible=True) if ref else {}
    logs = []
    for use_numba in (True, False):
        loop = MDPLoop(mdp, cls(3, spec, T, **kw), seed=3, use_numba=use_numba)
        loop.run(T, 100)
        logs.append(loop.logs)
    for col in ('cumulative_reward', 'normalized_cumulative_regret', 'cumulative_expected_reward'):
        np.testing.assert_allclose(logs[0][col], logs[1][col], rtol=1e-9, atol=1e-9)

@pytest.mark.parametrize('name', BENCHMARKED_AGENTS)
def test_default_agents_learn(name):
    "With the cached hyperparameters every benchmarked agent beats the random policy on a small RiverSwim."
    cls = AGENTS[name]; mdp = MDPS[cls.is_episodic()]; n = 20_000
    loop = MDPLoop(mdp, cls(0, make_mdp_spec(mdp, cls), n), seed=0)
    _, row = loop.run(n, 1_000)
    assert row['normalized_cumulative_regret'] < row['random_normalized_cumulative_regret'], row
