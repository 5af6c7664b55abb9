"""Throughput of the deep agents learning throughout, on a 100-state MDP with StateInfo observations, on one core; our DQN
side by side with Stable-Baselines3's DQN (when installed) with the same network, batch, update periods and budget.

MDP: `SimpleGridContinuous(seed=0, size=10, emission_map='StateInfo')` (100 states, observation (X, Y)).

Ours: each agent (built with `get_default_parameters()`) runs T steps in `MDPLoop` with learning throughout
(`stop_when_optimal=False`), its exact regret logged every 1,000 steps (the policy evaluated on the noise-free table);
steps/s = T / wall time of `run`, construction excluded.

SB3 (extra `stable-baselines3`): `DQN('MlpPolicy', env, policy_kwargs=dict(net_arch=[64, 64]), learning_rate=1e-3, buffer_size=10_000,
learning_starts=100, batch_size=32, train_freq=1, gradient_steps=1, target_update_interval=4, exploration_initial_eps=0.05,
exploration_final_eps=0.05, gamma=0.99)`, i.e. our DQNContinuous defaults (bsuite's default agent), on a minimal gymnasium
wrapper of the same MDP (observation = the StateInfo row, never terminated); steps/s = T / wall time of `learn(T)`. SB3
logs no regret; its loss is Huber where ours is half the squared error, which does not change the work done.

Each measurement runs in a fresh process, the cases interleaved, `--repeats` rounds; the median is printed. Usage:
`python benchmarks/deep_speed.py [--steps 20000] [--repeats 3]`.
"""
import argparse, json, statistics, subprocess, sys, time

CASES = ('DQNContinuous', 'SB3-DQN', 'BootDQNContinuous', 'ActorCriticContinuous', 'ActorCriticRNNContinuous')

def _mdp():
    from colosseum_nb.mdp.simple_grid import SimpleGridContinuous
    return SimpleGridContinuous(seed=0, size=10, emission_map='StateInfo')

def ours(name, T):
    from colosseum_nb.agent.agents import agent_class
    from colosseum_nb.utils import make_mdp_spec
    from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
    mdp = _mdp(); cls = agent_class(name)
    loop = MDPLoop(mdp, cls(seed=0, mdp_specs=make_mdp_spec(mdp), optimization_horizon=T, **cls.get_default_parameters()))
    loop.run(200, log_every=100, stop_when_optimal=False)   # compiles the regret kernels before the clock
    loop = MDPLoop(mdp, cls(seed=0, mdp_specs=make_mdp_spec(mdp), optimization_horizon=T, **cls.get_default_parameters()))
    t = time.perf_counter(); loop.run(T, log_every=1000, stop_when_optimal=False)
    return T / (time.perf_counter() - t)

def sb3(T):
    import numpy as np, gymnasium as gym, torch
    from stable_baselines3 import DQN
    torch.set_num_threads(1)
    mdp = _mdp(); O = np.asarray(mdp.emission_map.all_observations, np.float32)
    class Env(gym.Env):
        observation_space = gym.spaces.Box(O.min(), O.max(), O.shape[1:], np.float32)
        action_space = gym.spaces.Discrete(mdp.n_actions)
        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed); mdp.reset(); return O[int(mdp.cur)].copy(), {}
        def step(self, a):
            ts = mdp.step(int(a)); return O[int(mdp.cur)].copy(), float(ts.reward), False, False, {}
    model = DQN('MlpPolicy', Env(), policy_kwargs=dict(net_arch=[64, 64]), learning_rate=1e-3, buffer_size=10_000, learning_starts=100,
                batch_size=32, train_freq=1, gradient_steps=1, target_update_interval=4, exploration_initial_eps=0.05,
                exploration_final_eps=0.05, gamma=0.99, device='cpu', seed=0)
    t = time.perf_counter(); model.learn(T)
    return T / (time.perf_counter() - t)

def one(case, T):
    return sb3(T) if case == 'SB3-DQN' else ours(case, T)

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--steps', type=int, default=20_000); ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--one', default=None)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one, a.steps))); sys.exit()
    res = {c: [] for c in CASES}
    for _ in range(a.repeats):
        for c in CASES:
            p = subprocess.run([sys.executable, __file__, '--one', c, '--steps', str(a.steps)], capture_output=True, text=True,
                               env={**__import__('os').environ, 'OMP_NUM_THREADS': '1', 'NUMBA_NUM_THREADS': '1'})
            if p.returncode: res[c].append(None); print(f"{c}: failed: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else p.returncode}", file=sys.stderr)
            else: res[c].append(json.loads(p.stdout.strip().splitlines()[-1]))
    print(f"steps/s learning throughout, SimpleGridContinuous(size=10) with StateInfo (100 states), T={a.steps}, median of {a.repeats} fresh processes")
    for c, v in res.items():
        ok = [x for x in v if x is not None]
        print(f"  {c:28s} {statistics.median(ok):8.0f}" if ok else f"  {c:28s}   (not run: see stderr; SB3 needs `pip install stable-baselines3`)")
