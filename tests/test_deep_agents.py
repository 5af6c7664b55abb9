"""The deep (non-tabular) agents: the tabular package without torch, every deep agent in the loop on tiny MDPs, picklable, sampled
hyperparameters (skipped only where torch is not installed; CI installs it with the dev extra)."""
import pickle, subprocess, sys
import numpy as np
import pytest
from colosseum_nb.mdp.river_swim import RiverSwimEpisodic, RiverSwimContinuous
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.agent.non_tabular import DEEP_AGENTS
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop

def test_tabular_package_without_torch():
    "With torch unimportable, the package and the tabular agents import and run; asking for a deep agent names the `deep` extra."
    code = ("import sys; sys.modules['torch'] = None\n"
            "import colosseum_nb.experiment, colosseum_nb.benchmark, colosseum_nb.agent.agents.episodic as ep\n"
            "from colosseum_nb.agent.agents import agent_class\n"
            "assert 'torch' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
            "for get in (lambda: ep.DQNEpisodic, lambda: agent_class('DQNContinuous')):\n"
            "    try: get(); raise SystemExit('no ImportError')\n"
            "    except ImportError as e: assert \".[deep]\" in str(e), e\n"
            "print('ok')")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == 'ok', out.stderr

pytest.importorskip('torch')
from colosseum_nb.agent.agents import agent_class
from colosseum_nb.agent.utils import sample_agent_hyperparameters

MDPS = {True: RiverSwimEpisodic(seed=1, size=4, emission_map='StateInfo', noise='GaussianUncorrelated'),
        False: RiverSwimContinuous(seed=1, size=4, emission_map='OneHotEncoding')}

@pytest.mark.parametrize('name', list(DEEP_AGENTS))
def test_deep_agent_runs(name):
    "Each deep agent, built from sampled hyperparameters, runs in the loop: policies are distributions, regrets logged, and it pickles."
    if name.startswith('SB3'): pytest.importorskip('stable_baselines3')
    cls = agent_class(name); mdp = MDPS[cls.is_episodic()]; T = 400
    agent = cls(seed=0, mdp_specs=make_mdp_spec(mdp), optimization_horizon=T, **sample_agent_hyperparameters(cls, 0))
    loop = MDPLoop(mdp, agent)
    _, row = loop.run(T, log_every=100)
    shape = ((mdp.H,) if mdp.is_episodic() else ()) + (mdp.n_states, mdp.n_actions)
    for pi in (agent.current_optimal_stochastic_policy, agent.behaviour_policy):
        assert pi.shape == shape and (pi >= 0).all()
        np.testing.assert_allclose(pi.sum(-1), 1.0, atol=1e-9)
    assert row['cumulative_regret'] >= -1e-9 and np.isfinite(row['behaviour_cumulative_regret'])
    twin = pickle.loads(pickle.dumps(agent))
    np.testing.assert_array_equal(twin.current_optimal_stochastic_policy, agent.current_optimal_stochastic_policy)

@pytest.mark.parametrize('name', list(DEEP_AGENTS))
def test_deep_agent_refuses_tabular_mdp(name):
    if name.startswith('SB3'): pytest.importorskip('stable_baselines3')
    cls = agent_class(name)
    mdp = (RiverSwimEpisodic if cls.is_episodic() else RiverSwimContinuous)(seed=0, size=4)
    with pytest.raises(ValueError, match='emission_map'): cls(seed=0, mdp_specs=make_mdp_spec(mdp), optimization_horizon=10)

def test_sb3_module_without_sb3():
    "colosseum_nb.agent.sb3 imports without stable-baselines3; building an agent names the `sb3` extra."
    code = ("import sys; sys.modules['stable_baselines3'] = None\n"
            "import colosseum_nb.agent.sb3 as m\n"
            "from colosseum_nb.mdp.river_swim import RiverSwimContinuous\n"
            "from colosseum_nb.utils import make_mdp_spec\n"
            "spec = make_mdp_spec(RiverSwimContinuous(seed=0, size=3, emission_map='OneHotEncoding'))\n"
            "try: m.SB3AgentContinuous('PPO', 0, spec, 10)\n"
            "except ImportError as e: assert \"pip install -e '.[sb3]'\" in str(e), e; print('ok')\n")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == 'ok', out.stderr

@pytest.mark.parametrize('name', ['DQN', 'A2C', 'PPO'])
def test_sb3_agent_runs(name):
    "Each SB3 algorithm runs through the loop with an emission map, trains, reports distributions, and pickles."
    pytest.importorskip('stable_baselines3')
    from colosseum_nb.agent.sb3 import SB3AgentContinuous
    mdp = RiverSwimContinuous(seed=0, size=3, emission_map='OneHotEncoding', noise='GaussianUncorrelated')
    kw = dict(DQN=dict(learning_starts=50, train_freq=4), A2C=dict(n_steps=8), PPO=dict(n_steps=64, batch_size=32, n_epochs=2))[name]
    agent = SB3AgentContinuous(name, 0, make_mdp_spec(mdp), 300, policy_kwargs=dict(net_arch=[16]), **kw)
    loop = MDPLoop(mdp, agent); loop.run(300, log_every=100)
    assert agent.model._n_updates > 0
    np.testing.assert_allclose(agent.current_optimal_stochastic_policy.sum(-1), 1)
    np.testing.assert_allclose(agent.behaviour_policy.sum(-1), 1)
    assert np.isfinite(loop.logs[['cumulative_regret', 'behaviour_cumulative_regret']].to_numpy()).all()
    twin = pickle.loads(pickle.dumps(agent))
    np.testing.assert_allclose(twin.current_optimal_stochastic_policy, agent.current_optimal_stochastic_policy)
    MDPLoop(mdp, twin).run(50, log_every=25)
