"""The lockstep actor-critics (`colosseum_nb.agent.lockstep_ac`): a run's actions and policies do not depend on the runs that share
its batch, no run ever takes an action its MDP lacks, and each run follows its single-run class (skipped where torch is not installed)."""
import numpy as np
import pytest

pytest.importorskip('torch')
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.mdp.river_swim import RiverSwimEpisodic, RiverSwimContinuous
from colosseum_nb.mdp.simple_grid import SimpleGridEpisodic
from colosseum_nb.agent.actor_critic import ActorCriticEpisodic, ActorCriticContinuous
from colosseum_nb.agent.actor_critic_rnn import ActorCriticRNNEpisodic, ActorCriticRNNContinuous
from colosseum_nb.agent.lockstep_ac import LockstepActorCritic, LockstepActorCriticRNN

HP = dict(max_sequence_length=3, network_width=16)
ENGINES = [(LockstepActorCritic, ActorCriticEpisodic, ActorCriticContinuous), (LockstepActorCriticRNN, ActorCriticRNNEpisodic, ActorCriticRNNContinuous)]


def stream(spec, steps, seed):
    "Synthetic transitions `(obs, action, reward, next obs, first, terminal)` of a run, episodes of the spec's horizon (none if continuous)."
    rng, H = np.random.default_rng(seed), spec.H or steps + 1
    tab = np.array(spec.emission_map.all_observations, np.float32).reshape(-1, spec.emission_map.shape[0])
    return [(tab[rng.integers(len(tab))], int(rng.integers(spec.n_actions)), float(20 * rng.random()), tab[rng.integers(len(tab))],
             t % H == 0, t % H == H - 1) for t in range(steps)]


def step(eng, idx, rows):
    "One `act` and one `learn` of runs `idx` on their transitions `rows`; the actions drawn."
    o, a, r, o1, first, term = [[x[k] for x in rows] for k in range(6)]
    acts = eng.act(idx, eng.pad(idx, o), np.array(first))
    eng.learn(idx, eng.pad(idx, o), np.array(a), np.array(r, np.float32), eng.pad(idx, o1), np.array(term))
    return acts


@pytest.mark.parametrize('engine,episodic', [pytest.param(e, ep, id=f"{e[0].__name__}-{'episodic' if ep else 'continuous'}") for e in ENGINES for ep in (True, False)])
def test_run_alone_equals_run_in_batch(engine, episodic):
    "Run 0 of a 1-run engine and run 0 of a 3-run engine (other seeds, other data, the others sometimes sitting out) draw the same actions and report the same policies."
    cls, agent = engine[0], engine[1] if episodic else engine[2]
    mdp = (RiverSwimEpisodic if episodic else RiverSwimContinuous)(seed=0, size=4, emission_map='StateInfo')
    spec, steps = make_mdp_spec(mdp), 24
    alone, batch = cls(agent, [5], spec, steps, HP), cls(agent, [5, 11, 12], spec, steps, HP)
    alone.start([0]); batch.start([0, 1, 2])
    streams = [stream(spec, steps, j) for j in range(3)]
    pos = [0, 0, 0]
    for t in range(steps):
        idx = [0] + [j for j in (1, 2) if (t + j) % 3]
        a1 = step(alone, [0], [streams[0][t]])
        aN = step(batch, idx, [streams[j][pos[j]] for j in idx])
        for j in idx: pos[j] += 1
        assert a1[0] == aN[0]
        for name in ('current_optimal_stochastic_policy', 'behaviour_policy'):
            np.testing.assert_allclose(alone.policies([0], name)[0], batch.policies([0], name)[0], atol=1e-5)
    assert alone.version[0] == batch.version[0] > 0


@pytest.mark.parametrize('engine', ENGINES, ids=lambda e: e[0].__name__)
def test_padded_actions_never_chosen_and_runs_follow_single_run_class(engine):
    "Over a 2-action and a 5-action MDP, no padded action is drawn, each run's policy has its own shape and stays that of its single-run agent."
    cls, agent = engine[:2]
    specs = [make_mdp_spec(RiverSwimEpisodic(seed=0, size=4, emission_map='StateInfo')), make_mdp_spec(SimpleGridEpisodic(seed=0, size=3, emission_map='StateInfo'))]
    steps = 16
    eng, single = cls(agent, [3, 4], specs, steps, HP), [agent(s, sp, steps, **HP) for s, sp in zip([3, 4], specs)]
    assert eng.n_actions.tolist() == [2, 5] and eng.invalid[0].tolist() == [False, False, True, True, True]
    eng.start([0, 1])
    streams = [stream(sp, steps, j) for j, sp in enumerate(specs)]
    for t in range(steps):
        acts = step(eng, [0, 1], [streams[0][t], streams[1][t]])
        assert (acts < eng.n_actions).all()
        for ag, x in zip(single, (streams[0][t], streams[1][t])): ag._act(x[0], 0, x[4]); ag._learn(x[0], x[1], x[2], x[3], x[5], 0)
        for p, ag in zip(eng.policies([0, 1]), single):
            assert p.shape == ag.current_optimal_stochastic_policy.shape
            np.testing.assert_allclose(p.sum(-1), 1.0, atol=1e-12)
            np.testing.assert_allclose(p, ag.current_optimal_stochastic_policy, atol=1e-5)
    assert eng.version.tolist() == [ag._version for ag in single] and eng.version.min() > 0
    draws = np.array([eng.act([0, 1], eng.pad([0, 1], [streams[0][0][0], streams[1][0][0]]), np.array([False, False])) for _ in range(200)])
    assert draws[:, 0].max() < 2 and draws[:, 1].max() < 5


def test_refusals():
    "Bad hyperparameters are refused by the class; each engine takes only its own family."
    spec = make_mdp_spec(RiverSwimEpisodic(seed=0, size=4, emission_map='StateInfo'))
    with pytest.raises(ValueError, match='td_lambda=2.0'): LockstepActorCritic(ActorCriticEpisodic, [0], spec, 10, dict(td_lambda=2.0))
    with pytest.raises(ValueError, match='td_lambda=2.0'): LockstepActorCriticRNN(ActorCriticRNNEpisodic, [0], spec, 10, dict(td_lambda=2.0))
    with pytest.raises(ValueError, match='LockstepActorCriticRNN'): LockstepActorCritic(ActorCriticRNNEpisodic, [0], spec, 10)
    with pytest.raises(ValueError, match='subclasses of ActorCriticRNN'): LockstepActorCriticRNN(ActorCriticEpisodic, [0], spec, 10)
