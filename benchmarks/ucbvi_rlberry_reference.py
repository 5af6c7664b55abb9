"""Our UCBVI against rlberry-scool's UCBVIAgent, side by side on rlberry's GridWorld, with the same parameters and many seeds.

The MDP: rlberry-scool's `GridWorld(nrows=size, ncols=size, walls=(), success_probability=0.8)` (the environment of the OPSRL paper's
"opsrl_vs_baselines" experiment, Tiapkin et al. 2022): 4 actions, a move succeeds with probability 0.8 and otherwise goes to
one of the other valid neighbours; reward 1 in the bottom-right corner; start in the top-left one. We build it as a
`CustomEpisodic` of ours from its arrays `env.P` (S, A, S) and `env.R` (S, A), with the horizon H.

The defaults are a 6 x 6 GridWorld, H = 20, 8 seeds of 400 episodes (8,000 steps), which a shared two-core machine runs
in minutes (rlberry's agent steps in Python); `--size 10 --horizon 50 --episodes 10000` is the OPSRL paper's protocol (500,000
steps per run, about a minute per seed for rlberry on an idle core).

Agents, each for `--seeds` seeds of `--episodes` episodes:
* rlberry-scool's `UCBVIAgent(env, horizon=H, gamma=1, bonus_type='simplified_bernstein', bonus_scale_factor=c,
  stage_dependent=False)` (c = `--scale`, default 1), seeded with k, one `_run_episode()` per episode;
* ours, `UCBVIEpisodic(bonus_type='simplified_bernstein', bonus_scale=c, rlberry_compatible=True)`: the same algorithm
  (no cap, bonus stored per stage of the visit, first maximiser, Q = 0 at start), in `MDPLoop` with seed k, learning
  throughout, logging every episode;
* ours with its own defaults (`rlberry_compatible=False`: cap at v_max(h), running minimum, fresh pooled bonus at every
  stage, random ties), to show what those choices change.
The one difference between the first two that cannot be removed: rlberry also learns the transition of an episode's last
step, which our loop does not give an agent (1 transition in H).

Regrets, per episode k: realised, V*_0(s0) - the episode's return (what rlberry and the OPSRL paper plot), and for all agents
the exact behaviour regret, V*_0(s0) - the value of the policy the agent acts with in that episode (rlberry's: the first
maximiser of its Q, evaluated here by dense backward induction).

Printed: per agent, the mean final regrets with 95% percentile-bootstrap confidence intervals over seeds (10,000 resamples),
and the check that the intervals of rlberry's and our compatible agent overlap (realised and behaviour); and the speed: wall
seconds per run and steps/s of each (our first run of a process includes compiling). `--out FILE.csv` writes the mean
curves with their intervals, which the UCBVI notebook draws (`benchmarks/ucbvi_rlberry_reference.csv` by default).

rlberry-scool is a benchmark-only dependency, never a runtime one:

    .venv/bin/pip install rlberry-scool
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/ucbvi_rlberry_reference.py [--seeds 8] [--episodes 400] [--size 6] [--horizon 20] [--scale 1] [--workers 2] [--out FILE.csv]
"""
import os, sys, time, warnings
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
from pathlib import Path
from concurrent.futures import ProcessPoolExecutor
import numpy as np
import pandas as pd

OUT = Path(__file__).with_suffix('.csv')
CURVES = ('realised_cumulative_regret', 'behaviour_cumulative_regret')

def gridworld(size):
    "rlberry-scool's GridWorld size x size, no walls, success probability 0.8."
    from rlberry_scool.envs.finite import GridWorld
    return GridWorld(nrows=size, ncols=size, walls=(), success_probability=0.8)

def ours_mdp(env, H, seed):
    "The GridWorld as our `CustomEpisodic`."
    from colosseum_nb.mdp.custom_mdp import CustomEpisodic
    mu = np.zeros(env.observation_space.n); mu[env.coord2index[env.start_coord]] = 1.0
    return CustomEpisodic(seed=seed, T=env.P, R=env.R, starting_distribution=mu, H=H)

def optimal_value(P, R, H):
    "V*_0 by backward induction on the dense model."
    V = np.zeros(P.shape[0])
    for _ in range(H): V = (R + P @ V).max(1)
    return V

def policy_value(P, R, acts):
    "V^pi_0 of a deterministic policy `acts[h, s]` (dense backward induction)."
    S = P.shape[0]; V = np.zeros(S); idx = np.arange(S)
    for h in reversed(range(acts.shape[0])):
        a = acts[h]; V = R[idx, a] + P[idx, a] @ V
    return V

def run_ours(seed, size, H, episodes, scale, compatible):
    "Per-episode cumulative (realised, behaviour) regrets of ours; seconds of the run."
    from colosseum_nb.agent.agents.episodic import UCBVIEpisodic
    from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
    from colosseum_nb.utils import make_mdp_spec
    env = gridworld(size); mdp = ours_mdp(env, H, seed); T = H * episodes
    t = time.perf_counter()
    agent = UCBVIEpisodic(seed, make_mdp_spec(mdp), T, bonus_type='simplified_bernstein', bonus_scale=scale, rlberry_compatible=compatible)
    loop = MDPLoop(mdp, agent, seed=seed); loop.run(T, H, stop_when_optimal=False)
    sec = time.perf_counter() - t
    lg = loop.logs   # one row per episode (the last one is labelled T - 1 and covers all T steps)
    assert len(lg) == episodes
    return np.stack([lg[c].to_numpy() for c in CURVES], 1), sec

def run_rlberry(seed, size, H, episodes, scale):
    "Per-episode cumulative (realised, behaviour) regrets of rlberry-scool's UCBVIAgent; seconds of the run."
    import rlberry
    from rlberry_scool.agents import UCBVIAgent
    rlberry.logger.setLevel('WARNING')   # no per-episode INFO lines
    env = gridworld(size); P, R = env.P, env.R
    s0 = env.coord2index[env.start_coord]; vstar = optimal_value(P, R, H)[s0]
    t, ev = time.perf_counter(), 0.0
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        agent = UCBVIAgent(env, horizon=H, gamma=1.0, bonus_type='simplified_bernstein', bonus_scale_factor=scale, stage_dependent=False, seeder=seed)
    agent._writer = None   # its per-episode logging (three scalars into a data frame) is most of its time and none of the algorithm
    out = np.zeros((episodes, 2)); real = beh = 0.0
    for k in range(episodes):
        te = time.perf_counter()
        acts = agent.Q.argmax(-1)                       # the policy of this episode (first maximiser), evaluated exactly
        beh += vstar - policy_value(P, R, acts)[s0]
        ev += time.perf_counter() - te
        real += vstar - agent._run_episode()
        out[k] = real, beh
    return out, time.perf_counter() - t - ev

def _run(job):
    who, seed, size, H, episodes, scale = job
    if who == 'rlberry': arr, sec = run_rlberry(seed, size, H, episodes, scale)
    else: arr, sec = run_ours(seed, size, H, episodes, scale, who == 'ours_compatible')
    return who, seed, arr, sec

def bootstrap_ci(x, reps=10_000, level=0.95, seed=0):
    "(mean, lower, upper): percentile-bootstrap interval of the mean of `x`."
    x = np.asarray(x, float); rng = np.random.default_rng(seed)
    means = x[rng.integers(0, len(x), (reps, len(x)))].mean(1)
    return x.mean(), *np.quantile(means, [(1 - level) / 2, (1 + level) / 2])

def _curves(who, A, H):
    "Mean curves and bootstrap bands of one agent, every 1% of the episodes."
    K = A.shape[1]; idx = np.unique(np.linspace(0, K - 1, min(K, 100)).astype(int))
    rows = []
    for j, c in enumerate(CURVES):
        for k in idx:
            m, lo, hi = bootstrap_ci(A[:, k, j], reps=2000)
            rows.append(dict(agent=who, indicator=c, episodes=k + 1, steps=(k + 1) * H, mean=m, q025=lo, q975=hi))
    return pd.DataFrame(rows)

def main(seeds=8, episodes=400, size=6, H=20, scale=1.0, workers=2, out=OUT):
    print(f"GridWorld {size}x{size} (p = 0.8, no walls), H = {H}, {seeds} seeds x {episodes:,} episodes = {H * episodes:,} steps; "
          f"simplified Bernstein bonus, scale {scale}; {workers} worker processes, machine shared with other jobs", flush=True)
    agents = ('rlberry', 'ours_compatible', 'ours_default')
    jobs = [(w, k, size, H, episodes, scale) for k in range(seeds) for w in agents]
    res = {w: {} for w in agents}; secs = {w: [] for w in agents}
    with ProcessPoolExecutor(workers) as ex:
        for who, seed, arr, sec in ex.map(_run, jobs):
            res[who][seed] = arr; secs[who].append(sec)
            print(f"{who:>16} seed {seed:2d}: {sec:7.1f} s, final realised {arr[-1, 0]:8.1f}, behaviour {arr[-1, 1]:8.1f}", flush=True)
    A = {w: np.stack([res[w][k] for k in range(seeds)]) for w in agents}
    print(f"\nfinal regrets after {episodes:,} episodes, mean [95% bootstrap CI] over {seeds} seeds")
    ci = {}
    for w in agents:
        for j, c in enumerate(CURVES):
            ci[w, c] = bootstrap_ci(A[w][:, -1, j])
            print(f"  {w:>16} {c:<28} {ci[w, c][0]:>9.1f} [{ci[w, c][1]:.1f}, {ci[w, c][2]:.1f}]")
    ok = [ci['rlberry', c][1] <= ci['ours_compatible', c][2] and ci['ours_compatible', c][1] <= ci['rlberry', c][2] for c in CURVES]
    print("rlberry vs ours (compatible): intervals overlap: " + ', '.join(f"{c} {'yes' if o else 'NO'}" for c, o in zip(CURVES, ok)))
    steps = H * episodes
    print("\nspeed (median wall seconds of a run, steps/s; our runs include the policy evaluations of the loop's indicators, rlberry's exclude ours)")
    for w in agents:
        med = float(np.median(secs[w])); print(f"  {w:>16} {med:8.2f} s  {steps / med:>12,.0f} steps/s")
    print(f"  speed ratio ours (compatible) / rlberry: {np.median(secs['rlberry']) / np.median(secs['ours_compatible']):.1f}x")
    if out:
        pd.concat([_curves(w, A[w], H) for w in agents], ignore_index=True).to_csv(out, index=False); print(f"mean curves written to {out}")
    print(f"{sum(ok)} of {len(ok)} checks passed")
    return ci

if __name__ == '__main__':
    arg = lambda k, d, f=int: f(sys.argv[sys.argv.index(k) + 1]) if k in sys.argv else d
    main(arg("--seeds", 8), arg("--episodes", 400), arg('--size', 6), arg('--horizon', 20), arg('--scale', 1.0, float), arg('--workers', 2),
         arg('--out', OUT, Path))
