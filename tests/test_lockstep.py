"""Deep agents in lockstep (`colosseum_nb.agent.lockstep*`, `colosseum_nb.experiment.lockstep`): a batch of N runs behaves as N
single runs (final regrets over 20 seeds agree: bootstrap intervals overlap, per agent), a run's agent side does not depend
on its batch mates, padded actions are never taken, a CPU-only machine never touches CUDA, and the benchmark runner plays
the deep runs in lockstep, writes every log in Colosseum's layout, and resumes run by run (skipped where torch is absent)."""
import subprocess, sys, textwrap
import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip('torch')
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.mdp.river_swim import RiverSwimContinuous, RiverSwimEpisodic
from colosseum_nb.mdp.simple_grid import SimpleGridContinuous
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
from colosseum_nb.experiment.lockstep import LockstepLoop, lockstep_engine_class
from colosseum_nb.experiment.experiment_instances import agent_class_from_name

SEEDS, T = 20, 400
SMALL = dict(network_width=16)   # the same small network on both sides keeps the test fast
HP = {'DQNContinuous': dict(SMALL, min_replay_size=32), 'BootDQNEpisodic': dict(SMALL, n_ensemble=4, batch_size=16),
      'ActorCriticContinuous': dict(SMALL, max_sequence_length=8), 'ActorCriticRNNEpisodic': dict(SMALL, max_sequence_length=8)}


def _mdp(cls, seed):
    return (RiverSwimEpisodic if cls.is_episodic() else RiverSwimContinuous)(seed=seed, size=5, emission_map='StateInfo')


def _final(row): return row['behaviour_normalized_cumulative_regret'] / (row['steps'] + 1)


def _boot_ci(x, rng, n=2000):
    means = rng.choice(x, (n, len(x))).mean(1)
    return np.quantile(means, [0.025, 0.975])


@pytest.mark.parametrize('name', list(HP))
def test_batch_behaves_as_single_runs(name):
    "Final normalised behaviour regrets of 20 single runs and of one batch of 20 runs (seeds 0..19): their 95% bootstrap intervals of the mean overlap."
    cls, hp = agent_class_from_name(name), HP[name]
    single = []
    for s in range(SEEDS):
        mdp = _mdp(cls, s)
        loop = MDPLoop(mdp, cls(seed=s, mdp_specs=make_mdp_spec(mdp), optimization_horizon=T, **hp))
        single.append(_final(loop.run(T, 100, stop_when_optimal=False)[1]))
    mdps = [_mdp(cls, s) for s in range(SEEDS)]
    engine = lockstep_engine_class(cls)(cls, list(range(SEEDS)), [make_mdp_spec(m) for m in mdps], T, hp)
    batch = [_final(r) for _, r in LockstepLoop(mdps, engine).run(T, 100, stop_when_optimal=False)]
    rng = np.random.default_rng(0)
    a, b = _boot_ci(np.array(single), rng), _boot_ci(np.array(batch), rng)
    assert a[0] <= b[1] and b[0] <= a[1], f"{name}: single runs {np.mean(single):.3f} {a}, lockstep {np.mean(batch):.3f} {b}"


def _drive(engine, idx, obs_fn, steps, rng):
    "Act and learn `steps` times for runs `idx` on random observations of their tables; the actions taken, per step."
    out = []
    for t in range(steps):
        o = [obs_fn(i, rng) for i in idx]; o1 = [obs_fn(i, rng) for i in idx]
        a = engine.act(idx, engine.pad(idx, o), np.array([t == 0] * len(idx)))
        engine.learn(idx, engine.pad(idx, o), a, rng.random(len(idx)).astype(np.float32), engine.pad(idx, o1), np.zeros(len(idx), bool))
        out.append(a)
    return np.array(out)


@pytest.mark.parametrize('name', ['DQNContinuous', 'BootDQNContinuous'])
def test_run_does_not_depend_on_its_batch(name):
    "The same run (seed 7, same data) alone and beside two runs on another MDP (padded): the same actions and, to float rounding, the same policies."
    cls = agent_class_from_name(name)
    hp = dict(SMALL, batch_size=8) | (dict(min_replay_size=8) if name.startswith('DQN') else dict(n_ensemble=3))
    mdp, grid = RiverSwimContinuous(seed=0, size=4, emission_map='StateInfo'), SimpleGridContinuous(seed=0, size=3, emission_map='StateInfo')
    eng = lockstep_engine_class(cls)
    alone = eng(cls, [7], make_mdp_spec(mdp), 60, hp)
    batch = eng(cls, [7, 1, 2], [make_mdp_spec(mdp), make_mdp_spec(grid), make_mdp_spec(grid)], 60, hp)
    tabs = [np.asarray(m.emission_map.all_observations, np.float32) for m in (mdp, grid, grid)]
    obs = lambda i, rng: tabs[i][rng.integers(len(tabs[i]))]
    a1 = _drive(alone, [0], lambda i, rng: obs(0, rng), 60, np.random.default_rng(3))
    rng_b = np.random.default_rng(3)
    aN = _drive(batch, [0], lambda i, rng: obs(0, rng), 60, rng_b)
    np.testing.assert_array_equal(a1[:, 0], aN[:, 0])
    np.testing.assert_allclose(alone.policies([0])[0], batch.policies([0])[0], atol=1e-5)
    # the other runs step too, then run 0 again: still the same as alone
    _drive(batch, [0, 1, 2], lambda i, rng: obs(i, rng), 20, np.random.default_rng(4))
    _drive(alone, [0], lambda i, rng: obs(0, rng), 20, np.random.default_rng(4))
    np.testing.assert_allclose(alone.policies([0])[0], batch.policies([0])[0], atol=1e-4)


@pytest.mark.parametrize('name', ['DQNContinuous', 'BootDQNContinuous', 'ActorCriticContinuous', 'ActorCriticRNNContinuous'])
def test_padded_actions_never_taken(name):
    "A 2-action MDP batched with a 5-action one: over 600 steps each run takes only its own actions, and its policies have its own shape."
    cls = agent_class_from_name(name)
    mdps = [RiverSwimContinuous(seed=0, size=4, emission_map='StateInfo'), SimpleGridContinuous(seed=0, size=3, emission_map='StateInfo')]
    engine = lockstep_engine_class(cls)(cls, [0, 1], [make_mdp_spec(m) for m in mdps], 600, HP.get(name, SMALL) | (dict(n_ensemble=3, batch_size=8) if 'Boot' in name else {}))
    taken, orig = [], engine.act
    engine.act = lambda idx, obs, first: taken.append((list(idx), orig(idx, obs, first))) or taken[-1][1]
    LockstepLoop(mdps, engine).run(600, 200, stop_when_optimal=False)
    for idx, acts in taken:
        for i, a in zip(idx, acts): assert 0 <= a < mdps[i].n_actions
    assert {tuple(p.shape) for p in engine.policies([0])} == {(4, 2)} and engine.policies([1])[0].shape == (9, 5)
    for p in engine.policies([0, 1], 'behaviour_policy'): np.testing.assert_allclose(p.sum(-1), 1.0)


def test_cpu_only_never_touches_cuda():
    "On a machine without a GPU, a lockstep run leaves CUDA uninitialised, and asking for 'cuda' is refused naming the problem."
    code = textwrap.dedent('''
        import torch
        from colosseum_nb.utils import make_mdp_spec
        from colosseum_nb.mdp.river_swim import RiverSwimContinuous
        from colosseum_nb.agent.dqn import DQNContinuous
        from colosseum_nb.agent.lockstep_dqn import LockstepDQN
        from colosseum_nb.experiment.lockstep import LockstepLoop
        m = RiverSwimContinuous(seed=0, size=4, emission_map='StateInfo')
        LockstepLoop([m, m], LockstepDQN(DQNContinuous, [0, 1], make_mdp_spec(m), 200, dict(min_replay_size=20))).run(200, 100)
        print('initialised', torch.cuda.is_initialized())
        if not torch.cuda.is_available():
            try: LockstepDQN(DQNContinuous, [0], make_mdp_spec(m), 10, device='cuda')
            except ValueError as e: print('refused', 'sees no GPU' in str(e))
        else: print('refused True')
    ''')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert 'initialised False' in out.stdout and 'refused True' in out.stdout, out.stdout


def test_runner_plays_deep_runs_in_lockstep_and_resumes(tmp_path):
    "`colosseum_nb run` on the non-tabular quick test with DQN: every log written in Colosseum's layout, none cut; a second call resumes (nothing rerun); --lockstep 1 gives the single-run path."
    cmd = [sys.executable, '-m', 'colosseum_nb', 'run', '--benchmark', 'continuous_quick_test', '--emission-map', 'StateInfo', '--agents', 'DQNContinuous',
           '--steps', '600', '--seeds', '2', '--cores', '1', '--no-analysis', '--no-progress', '--results', str(tmp_path)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    logs = sorted((tmp_path / 'benchmark_continuous_quick_test' / 'logs').rglob('seed*_logs.csv'))
    assert len(logs) == 14 and not list(tmp_path.rglob('*time_exceeded.txt'))
    df = pd.read_csv(logs[0])
    assert df.steps.iloc[-1] == 599 and 'behaviour_normalized_cumulative_regret' in df
    before = {p: p.stat().st_mtime_ns for p in logs}
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and all(p.stat().st_mtime_ns == t for p, t in before.items())


@pytest.mark.parametrize('name', ['DQNEpisodic', 'ActorCriticRNNEpisodic'])
def test_episodic_runs_of_different_horizons_share_a_batch(name):
    "Episodic MDPs with different horizons (their episodes end at different steps, some runs finish reading a policy while others ask for another) play to the end in one batch, each logged as alone."
    from colosseum_nb.mdp.simple_grid import SimpleGridEpisodic
    cls = agent_class_from_name(name)
    mdps = [RiverSwimEpisodic(seed=0, size=4, emission_map='StateInfo'), SimpleGridEpisodic(seed=0, size=3, emission_map='StateInfo'),
            RiverSwimEpisodic(seed=1, size=6, emission_map='StateInfo')]
    T = 304   # the horizons 4, 4 and 6: the first two runs end an episode at the last step (a behaviour read) while the third reads its final policy
    assert [m.H for m in mdps] == [4, 4, 6] and T % 4 == 0 and T % 6
    engine = lockstep_engine_class(cls)(cls, [0, 1, 2], [make_mdp_spec(m) for m in mdps], T, dict(SMALL, max_sequence_length=4) if 'Actor' in name else dict(SMALL, min_replay_size=20))
    loop = LockstepLoop(mdps, engine)
    res = loop.run(T, 100, stop_when_optimal=False)
    assert [r['steps'] for _, r in res] == [T - 1] * 3 and all(len(l.logs) == 4 for l in loop.loops)


@pytest.mark.parametrize('name', ['DQNEpisodic', 'DQNContinuous', 'ActorCriticRNNEpisodic', 'BootDQNContinuous'])
def test_batched_driver_matches_the_generator_driver(name):
    """`play_batched` (the runs' loops as one) and `play_lockstep` (one generator per run) give the same logs and `out`, number for
    number (the seconds left out), through the optimality stop: runs that stop learning keep acting, and episodic ones draw their
    next start at once, as their own loop does."""
    from colosseum_nb.experiment.lockstep import play_lockstep
    from colosseum_nb.experiment.lockstep import play_batched
    cls = agent_class_from_name(name)
    res = []
    for play in (play_lockstep, play_batched):
        mdps = [(RiverSwimEpisodic if cls.is_episodic() else RiverSwimContinuous)(seed=k, size=2 + k % 2, emission_map='StateInfo') for k in range(4)]
        hp = dict(HP.get(name, SMALL)); hp.setdefault('network_width', 16)
        T = 1000 if name.startswith('DQN') else 500   # the DQN runs meet the optimality stop at about step 620
        ll = LockstepLoop(mdps, lockstep_engine_class(cls)(cls, [0, 1, 2, 3], [make_mdp_spec(m) for m in mdps], T, hp))
        assert ll.rows_only
        plans, outs, kws = ll._prepare(T, 20, np.inf, True)
        n = play(ll.engine, kws)
        res.append([(np.delete(p['raw'][:k], 5, 1).tolist(), o.tolist()) for p, k, o in zip(plans, n, outs)])
    assert res[0] == res[1]
    if name.startswith('DQN'): assert any(o[1] >= 0 for _, o in res[1]), "no run met the optimality stop: the test misses its point"


class DoubleDQNContinuous(agent_class_from_name('DQNContinuous')):
    "Double DQN: the online network picks the next action, the target network values it (only the target overridden)."
    def bootstrap_value(self, target_next, online_next): return target_next.gather(-1, online_next.argmax(-1, keepdim=True))[..., 0]


class HuberDQNContinuous(agent_class_from_name('DQNContinuous')):
    "DQN with the Huber loss (only the loss overridden)."
    def td_loss(self, td): return torch.nn.functional.huber_loss(td, torch.zeros_like(td), reduction='none', delta=0.1)


@pytest.mark.parametrize('cls', [DoubleDQNContinuous, HuberDQNContinuous])
def test_dqn_variants_run_in_lockstep_with_their_own_target_and_loss(cls):
    # A variant that overrides only the extension points keeps its lockstep engine, and the engine computes the variant's
    # loss: equal to the single-run agent's on the same minibatch and weights (the engine's run is initialised as the single
    # run of its seed), and different from DQN's.
    from colosseum_nb.agent.lockstep_dqn import LockstepDQN
    assert lockstep_engine_class(cls) is LockstepDQN
    mdp = SimpleGridContinuous(seed=42, size=4, emission_map='StateInfo')
    spec, rng = make_mdp_spec(mdp), np.random.default_rng(0)
    single, engine = cls(seed=3, mdp_specs=spec, optimization_horizon=100, **SMALL), LockstepDQN(cls, [3], [spec], 100, SMALL)
    with torch.no_grad():   # the target network apart from the online one, alike on both sides, so the two targets differ
        noise = [torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)) for p in single.target.parameters()]
        for p, n in zip(single.target.parameters(), noise): p.add_(n)
        linears = [m for m in single.target if isinstance(m, torch.nn.Linear)]
        for l, (W, b) in enumerate(zip(engine.target[0::2], engine.target[1::2])):
            W[0, :linears[l].in_features, :linears[l].out_features] = linears[l].weight.T
            b[0, 0, :linears[l].out_features] = linears[l].bias
    B, D = 16, int(np.prod(single.observation_shape))
    obs = mdp.emission_map.all_observations.reshape(mdp.n_states, -1).astype(np.float32)
    batch = dict(o=obs[rng.integers(mdp.n_states, size=B)], a=rng.integers(mdp.n_actions, size=B), r=rng.random(B).astype(np.float32),
                 d=np.ones(B, np.float32), o1=obs[rng.integers(mdp.n_states, size=B)])
    mine = float(single._loss(batch).detach())
    stacked = {k: torch.from_numpy(np.asarray(v))[None] for k, v in batch.items()}
    stacked['o'], stacked['o1'] = (torch.nn.functional.pad(stacked[k], (0, engine.D - D)) for k in ('o', 'o1'))
    theirs = float(engine._loss(np.array([0]), stacked, torch.ones(1)).detach())
    assert abs(mine - theirs) <= 1e-5 * max(1.0, abs(mine)), (mine, theirs)
    plain = agent_class_from_name('DQNContinuous')(seed=3, mdp_specs=spec, optimization_horizon=100, **SMALL)
    plain.online.load_state_dict(single.online.state_dict()); plain.target.load_state_dict(single.target.state_dict())
    assert abs(float(plain._loss(batch).detach()) - mine) > 1e-4, 'the variant computes DQN\'s loss'


class BoltzmannDQNContinuous(agent_class_from_name('DQNContinuous')):
    "DQN acting with the softmax of its Q-values (only `action_probabilities` overridden)."
    tau = 0.2
    def action_probabilities(self, q):
        e = np.exp((q - q.max(-1, keepdims=True)) / self.tau)
        return e / e.sum(-1, keepdims=True)


def test_dqn_variant_acts_with_its_own_policy_in_lockstep():
    # A variant's `action_probabilities` is both how each run of the batch acts (its own actions only, whatever the
    # padding) and the behaviour policy whose regret is logged.
    from colosseum_nb.agent.lockstep_dqn import LockstepDQN
    cls = BoltzmannDQNContinuous
    assert lockstep_engine_class(cls) is LockstepDQN
    mdps = [RiverSwimContinuous(seed=0, size=5, emission_map='StateInfo'), SimpleGridContinuous(seed=0, size=3, emission_map='StateInfo')]
    engine = LockstepDQN(cls, [0, 1], [make_mdp_spec(m) for m in mdps], 300, SMALL)
    pols = engine.policies([0, 1], 'behaviour_policy')
    for i, m in enumerate(mdps):
        out = engine._outputs(np.array([i]))[0, :m.n_states, :m.n_actions].double().numpy()
        np.testing.assert_allclose(pols[i], cls.action_probabilities(engine.proto, out))
        assert pols[i].shape == (m.n_states, m.n_actions)
    obs = engine.pad([0, 1], np.array([0, 0]))
    draws = np.array([engine.act([0, 1], obs, np.array([False, False])) for _ in range(3000)])
    assert draws[:, 0].max() < mdps[0].n_actions   # never an action RiverSwim lacks
    for i in range(2):
        freq = np.bincount(draws[:, i], minlength=mdps[i].n_actions) / len(draws)
        np.testing.assert_allclose(freq, pols[i][0], atol=0.035)
    loop = LockstepLoop([type(m)(seed=0, **({'size': 5} if i == 0 else {'size': 3}), emission_map='StateInfo') for i, m in enumerate(mdps)],
                        LockstepDQN(cls, [0, 1], [make_mdp_spec(m) for m in mdps], 300, dict(SMALL, min_replay_size=32)), seeds=[0, 1])
    loop.run(300, log_every=100)
    for l in loop.loops: assert l.logs.steps.max() == 299 and np.isfinite(l.logs.behaviour_normalized_cumulative_regret).all()
