"""Steps per second of `colosseum_nb.gym.ColosseumVectorEnv` (N copies of one MDP stepped in one numba call) next to
gymnasium's `SyncVectorEnv` over N single `ColosseumEnv`s of the same MDP, same seeds and the same random actions.

A "step" is one environment step of one copy, so a vector step of N copies counts N. For each case and N, both
vectorised environments are reset with seed 0, then stepped `--steps` times (vector steps) with actions drawn in advance;
the figure is the best of `--repeats` timed runs, after one untimed warm-up run (numba compiles or loads its cache).
Both run the same kernel per copy, so the ratio measures what one call for all copies saves over one Python call per copy.
Cases: an episodic DeepSea of size 10 observed through its one-hot encoding (S = 55, H = 10), and a continuous
MiniGridEmpty of size 6 with `ImageEncoding` and Gaussian noise (S = 144, observations 6x6), truncated every 100 steps.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/gym_vector_speed.py [--steps 200] [--repeats 3] [--n 1 16 256]
"""
import argparse, os, time
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
import numpy as np
import gymnasium
from colosseum_nb.gym import ColosseumEnv, ColosseumVectorEnv
from colosseum_nb.mdp import DeepSeaEpisodic, MiniGridEmptyContinuous

CASES = {'DeepSeaEpisodic(10), OneHotEncoding': (lambda: DeepSeaEpisodic(seed=0, size=10, emission_map='OneHotEncoding'), None),
         'MiniGridEmptyContinuous(6), ImageEncoding + noise, TimeLimit 100':
             (lambda: MiniGridEmptyContinuous(seed=0, size=6, emission_map='ImageEncoding', noise='GaussianUncorrelated'), 100)}

def timed(env, actions):
    "Seconds to reset `env` with seed 0 and take the vector steps `actions`."
    t0 = time.perf_counter()
    env.reset(seed=0)
    for a in actions: env.step(a)
    return time.perf_counter() - t0

def sync_env(mdp, n, max_steps):
    "`SyncVectorEnv` of `n` single environments (each in a `TimeLimit` when `max_steps`)."
    one = (lambda: ColosseumEnv(mdp)) if max_steps is None else (lambda: gymnasium.wrappers.TimeLimit(ColosseumEnv(mdp), max_steps))
    return gymnasium.vector.SyncVectorEnv([one for _ in range(n)])

def rate(env, actions, repeats):
    "Copy-steps per second: the best of `repeats` runs after a warm-up."
    timed(env, actions[:5])
    return actions.size / min(timed(env, actions) for _ in range(repeats))

def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--steps', type=int, default=200); p.add_argument('--repeats', type=int, default=3)
    p.add_argument('--n', type=int, nargs='+', default=[1, 16, 256])
    a = p.parse_args()
    print(f"gymnasium {gymnasium.__version__}; {a.steps} vector steps, best of {a.repeats}; copy-steps per second")
    print(f"{'case':<62} {'N':>5} {'ColosseumVectorEnv':>19} {'SyncVectorEnv':>14} {'ratio':>7}")
    for name, (make, max_steps) in CASES.items():
        mdp = make()
        for n in a.n:
            actions = np.random.default_rng(0).integers(0, mdp.n_actions, (a.steps, n))
            v = rate(ColosseumVectorEnv(mdp, n, max_steps), actions, a.repeats)
            s = rate(sync_env(mdp, n, max_steps), actions, a.repeats)
            print(f"{name:<62} {n:>5} {v:>19,.0f} {s:>14,.0f} {v / s:>6.1f}x")

if __name__ == '__main__': main()
