"""Agents learn for all T steps by default; Colosseum's optimality stop only in reference-compatible mode or when asked for.

Colosseum's agents run in the Python loop (the same decisions as the compiled one, tests/test_agents.py) with their
`step_update` counted: by default it is called at every step, with the stop it is not called after the step where the
stop fired. A model-based agent's plan count keeps growing after the step where the old rule froze it."""
import numpy as np
import pytest
from colosseum_nb import config
from colosseum_nb.mdp.river_swim import RiverSwimEpisodic, RiverSwimContinuous
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.agent.agents import AGENTS, DEFAULT_RUN_AGENTS
from colosseum_nb.agent.base import wants_observations
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop

MDPS = {True: RiverSwimEpisodic(seed=0, size=3, randomize_actions=False), False: RiverSwimContinuous(seed=0, size=3, randomize_actions=False)}
T, LOG = 1_000, 50
# Colosseum's agents of both settings: the stop lives in the loop, not in the agents, so these cover both loops and every kind of
# agent (model-free, posterior sampling, optimism, random); the other baselines run through the same loop (tests/test_agents.py)
AGENTS_RUN = [n for n in DEFAULT_RUN_AGENTS if not wants_observations(AGENTS[n])]

def _counted_run(name, **run_kw):
    "(loop, number of `step_update` calls) of one Python-loop run of agent `name` on its setting's 3-state RiverSwim."
    cls = AGENTS[name]; mdp = MDPS[cls.is_episodic()]
    agent = cls.get_agent_instance_from_parameters(0, T, make_mdp_spec(mdp, cls), cls.get_default_parameters())
    calls, update = [0], agent.step_update
    def counted(*a):
        calls[0] += 1; return update(*a)
    agent.step_update = counted
    loop = MDPLoop(mdp, agent, seed=0, use_numba=False)
    loop.run(T, LOG, **run_kw)
    return loop, calls[0]

@pytest.mark.parametrize('name', AGENTS_RUN)
def test_every_agent_learns_throughout_unless_asked(name):
    "By default the agent's update runs at every step; with the stop, it last runs at the step where the stop fired."
    loop, calls = _counted_run(name)
    assert (loop.stop_when_optimal, loop.stopped_optimal_at, loop.last_training_step) == (False, -1, -1)
    assert calls == T
    loop, calls = _counted_run(name, stop_when_optimal=True)
    assert loop.stop_when_optimal
    if loop.stopped_optimal_at < 0: assert calls == T
    else:
        assert 0.2 * T < loop.stopped_optimal_at < T
        assert calls == loop.stopped_optimal_at + 1   # the update of the step where the test passed is the last

@pytest.mark.parametrize('name', ['PSRLContinuous', 'UCRL2Continuous', 'PSRLEpisodic'])
def test_model_based_agents_keep_planning_after_the_old_stop(name):
    "Where Colosseum's rule froze the agent, learning throughout keeps making plans (and counting transitions) to the end."
    cls = AGENTS[name]; mdp = MDPS[cls.is_episodic()]; n = 20_000
    def run(**kw):
        agent = cls.get_agent_instance_from_parameters(0, n, make_mdp_spec(mdp, cls), cls.get_default_parameters())
        loop = MDPLoop(mdp, agent, seed=0); loop.run(n, LOG, **kw)
        # plans of the continuous agents; PSRLEpisodic draws a model every episode, from counts that grow while it learns
        return loop, agent.n_episodes if hasattr(agent, 'n_episodes') else int(agent.numba_agent.state.Nsa.sum())
    stopped, plans_stopped = run(stop_when_optimal=True)
    assert stopped.stopped_optimal_at > 0.2 * n, "the old rule should fire on this small MDP"
    throughout, plans = run()
    assert throughout.stopped_optimal_at == -1 and plans > plans_stopped
    with config.reference_compatible():   # Colosseum's mode brings its rule: the same stop as asking for it
        ref, _ = run()
    assert ref.stop_when_optimal and ref.stopped_optimal_at > 0

def test_run_refuses_a_bad_rule():
    loop = MDPLoop(MDPS[False], AGENTS['QLearningContinuous'].get_agent_instance_from_parameters(0, 10, make_mdp_spec(MDPS[False]), AGENTS['QLearningContinuous'].get_default_parameters()))
    with pytest.raises(ValueError, match='stop_when_optimal=1: must be True, False or None'): loop.run(10, 5, stop_when_optimal=1)
