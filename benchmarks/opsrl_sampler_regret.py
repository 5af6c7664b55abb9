"""OPSRLEpisodic's two samplers side by side: `sampler='numpy'` (numpy's Gamma draws, the agent's first sampler) and
`sampler='fast'` (the default: xoshiro256++ and Marsaglia and Tsang's method, many draws side by side). Both draw the same
posterior samples in distribution; only the random stream differs, so the regrets should agree up to the seeds' noise.

On MDPs of the episodic-communicating benchmark (by default the largest MiniGridEmpty, a SimpleGrid and a RiverSwim), for
seeds 0..N-1 (the MDP and the agent take the seed, as in the benchmark), both samplers run `--steps` steps in `MDPLoop`
with the benchmark's log every 100 steps and Colosseum's optimality stop, with the cached default hyperparameters (J = 8,
n0 = 1). Printed per MDP and sampler, per step (final cumulative value / steps): the mean normalised behaviour regret (the
acting policy's, exact), Colosseum's normalised indicator (the reported posterior-mean policy) and the realised regret,
with the seeds' standard error, and the CPU seconds per run (`time.process_time`; a warm-up run compiles first). The last
lines give, over all (MDP, seed) cells, the mean difference fast - numpy of the normalised behaviour regret with a 95%
bootstrap interval (cells resampled), and the total CPU ratio.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/opsrl_sampler_regret.py [--seeds 20] [--steps 30000] [--mdps NAME ...] [--csv FILE]
"""
import os, time, argparse
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
import numpy as np, pandas as pd
from colosseum_nb.benchmark.benchmark import build_benchmark_mdps
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
from colosseum_nb.agent.agents import agent_class
from colosseum_nb.utils import make_mdp_spec

DEFAULT_MDPS = ('prms_4-MiniGridEmptyEpisodic', 'prms_0-SimpleGridEpisodic', 'prms_1-RiverSwimEpisodic')
COLS = dict(behaviour='behaviour_normalized_cumulative_regret', colosseum='normalized_cumulative_regret', realised='realised_cumulative_regret')
MODES = ('numpy', 'fast')

def one_run(mdp, mode, seed, T):
    "Final log row values (per step) and CPU seconds of one run of OPSRLEpisodic with sampler `mode`."
    cls = agent_class('OPSRLEpisodic')
    agent = cls(seed, make_mdp_spec(mdp), T, **cls._kwargs_from_parameters(cls.get_default_parameters()), sampler=mode)
    c = time.process_time()
    _, last = MDPLoop(mdp, agent, seed=seed).run(T, 100)
    return {**{k: float(last[v]) / T for k, v in COLS.items()}, 'cpu_s': time.process_time() - c}

def main(seeds, T, names):
    mdps0 = dict(build_benchmark_mdps('episodic_communicating'))
    names = [n for n in names if n in mdps0] or sorted(mdps0)
    for mode in MODES: one_run(mdps0[names[0]], mode, 0, 2000)   # compile
    rows = []
    for seed in range(seeds):
        mdps = dict(build_benchmark_mdps('episodic_communicating', seed))
        for n in names:
            for mode in MODES:
                rows.append(dict(mdp=n, S=mdps[n].n_states, seed=seed, mode=mode, **one_run(mdps[n], mode, seed, T)))
                print(rows[-1], flush=True)
    return pd.DataFrame(rows)

def report(df, T):
    g = df.groupby(['mdp', 'mode'])
    t = g[['behaviour', 'colosseum', 'realised', 'cpu_s']].mean().unstack('mode')
    se = g.behaviour.sem().unstack('mode').add_prefix('se ')
    print(f"\n== OPSRLEpisodic, sampler numpy vs fast: {df.seed.nunique()} seeds, {T:,} steps, means over seeds; load average {os.getloadavg()[0]:.1f}")
    with pd.option_context('display.width', 200, 'display.precision', 4): print(pd.concat([t, se], axis=1).to_string())
    w = df.pivot_table(index=['mdp', 'seed'], columns='mode', values='behaviour')
    d = (w['fast'] - w['numpy']).to_numpy()
    boot = np.random.default_rng(0).choice(d, (10_000, len(d))).mean(1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    cpu = df.groupby('mode').cpu_s.sum()
    print(f"normalised behaviour regret, fast - numpy: mean {d.mean():+.4f}, 95% bootstrap CI [{lo:+.4f}, {hi:+.4f}] over {len(d)} (MDP, seed) cells")
    print(f"CPU seconds, all runs: numpy {cpu['numpy']:,.1f}, fast {cpu['fast']:,.1f} ({cpu['numpy'] / cpu['fast']:.1f}x less)")

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--seeds', type=int, default=20); ap.add_argument('--steps', type=int, default=30_000)
    ap.add_argument('--mdps', nargs='*', default=None); ap.add_argument('--csv', default=None)
    a = ap.parse_args()
    df = main(a.seeds, a.steps, a.mdps or list(DEFAULT_MDPS))
    if a.csv: df.to_csv(a.csv, index=False)
    report(df, a.steps)
