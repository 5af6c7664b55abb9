"""The two transition samplers of the posterior-sampling agents side by side: the exact posterior sample (`transitions_sampling='dense'`,
Colosseum's) and the support sample (the default: each pair's observed next states and its unobserved mass drawn
exactly, the unobserved mass spread evenly; see `colosseum_nb.agent.mdp_models.posterior_support_sample`), for
`PSRLEpisodic` (the default `--agent`), `TSDEContinuous` or plain `PSRLContinuous` (`--agent PSRLContinuous`, run with
`no_optimistic_sampling=True`: the optimistic variant's samples are another matter).

On MDPs of the episodic-communicating benchmark for PSRLEpisodic (by default one instance per family, the largest
MiniGridEmpty included), of the continuous-communicating one for the others (by default its RiverSwim and FrozenLake
instances: with the exact sample their plans are dense and slow on larger MDPs), for seeds 0..N-1 (the MDP and the agent take the seed, as in the benchmark), both samplers run `--steps`
steps in `MDPLoop` with the benchmark's log every 100 steps and Colosseum's optimality stop, with the cached default
hyperparameters, learning as in the main job. Printed per MDP and sampler, per step (final cumulative value / steps): the mean normalised behaviour regret
(regret of the acting policy, exact), Colosseum's normalised indicator (the reported posterior-mean policy) and the realised
regret (not normalised), with the seeds' standard error, and the CPU seconds per run (`time.process_time`, one process; a
warm-up run compiles first). The last lines give, over all (MDP, seed) cells, the mean difference support - dense of
the normalised behaviour regret with a 95% bootstrap interval (cells resampled), and the total CPU ratio.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/psrl_support_sampling.py [--agent PSRLEpisodic] [--seeds 5] [--steps 500000] [--mdps NAME ...]
"""
import os, time, argparse
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
import numpy as np, pandas as pd
from colosseum_nb.benchmark.benchmark import build_benchmark_mdps
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
from colosseum_nb.agent.agents import agent_class
from colosseum_nb.utils import make_mdp_spec

DEFAULT_MDPS = ('prms_3-MiniGridEmptyEpisodic', 'prms_3-SimpleGridEpisodic', 'prms_1-MiniGridRoomsEpisodic', 'prms_1-DeepSeaEpisodic',
                'prms_1-TaxiEpisodic', 'prms_1-RiverSwimEpisodic', 'prms_0-FrozenLakeEpisodic')
CONTINUOUS_MDPS = ('prms_0-RiverSwimContinuous', 'prms_1-RiverSwimContinuous', 'prms_0-FrozenLakeContinuous', 'prms_1-FrozenLakeContinuous')
# the exact sample makes the continuous agents' plans dense (5,000 steps of TSDE on the 225-state SimpleGrid: 0.7 s with the
# support sampler, 401 s with the exact one), so the continuous comparison runs on the benchmark's smaller MDPs
# per comparison (an agent's name, or 'name/keyword' for a second comparison of the same agent): the keyword compared,
# (the exact or first mode, the fast mode), other keywords, the benchmark of its MDPs (OPSRLEpisodic's two Gamma samplers
# and its two resampling rules are compared by `opsrl_sampler_regret.py`, which calls `main` and `report` below)
SAMPLERS = {'PSRLEpisodic': ('transitions_sampling', ('dense', 'support'), {}, 'episodic_communicating'),
            'TSDEContinuous': ('transitions_sampling', ('dense', 'support'), {}, 'continuous_communicating'),
            'PSRLContinuous': ('transitions_sampling', ('dense', 'support'), dict(no_optimistic_sampling=True), 'continuous_communicating'),
            'OPSRLEpisodic': ('sampler', ('numpy', 'fast'), {}, 'episodic_communicating'),
            'OPSRLEpisodic/resample': ('resample', ('all', 'visited'), {}, 'episodic_communicating')}
COLS = dict(behaviour='behaviour_normalized_cumulative_regret', colosseum='normalized_cumulative_regret', realised='realised_cumulative_regret')

def one_run(name, mdp, mode, seed, T):
    "Final log row values and CPU seconds of one run of the comparison `name` (a key of `SAMPLERS`) in `mode`."
    key, _, extra, _ = SAMPLERS[name]
    cls = agent_class(name.split('/')[0])
    agent = cls(seed, make_mdp_spec(mdp), T, **cls._kwargs_from_parameters(cls.get_default_parameters()), **{key: mode}, **extra)
    c = time.process_time()
    _, last = MDPLoop(mdp, agent, seed=seed).run(T, 100)
    return {**{k: float(last[v]) / T for k, v in COLS.items()}, 'cpu_s': time.process_time() - c}   # regrets per step

def main(agent, seeds, T, names):
    _, modes, _, setting = SAMPLERS[agent]
    mdps0 = dict(build_benchmark_mdps(setting))
    names = [n for n in names if n in mdps0] or sorted(mdps0)
    for mode in modes: one_run(agent, mdps0[names[0]], mode, 0, 2000)   # compile
    rows = []
    for seed in range(seeds):
        mdps = dict(build_benchmark_mdps(setting, seed))
        for n in names:
            for mode in modes:
                rows.append(dict(mdp=n, S=mdps[n].n_states, seed=seed, mode=mode, **one_run(agent, mdps[n], mode, seed, T)))
                print(rows[-1], flush=True)
    return pd.DataFrame(rows)

def report(df, T, agent):
    old, new = SAMPLERS[agent][1]
    g = df.groupby(['mdp', 'mode'])
    t = g[['behaviour', 'colosseum', 'realised', 'cpu_s']].mean().unstack('mode')
    se = g.behaviour.sem().unstack('mode').add_prefix('se ')
    print(f"\n== {agent}, {old} vs {new} sampler: {df.seed.nunique()} seeds, {T:,} steps, means over seeds; load average {os.getloadavg()[0]:.1f}")
    with pd.option_context('display.width', 200, 'display.precision', 4): print(pd.concat([t, se], axis=1).to_string())
    w = df.pivot_table(index=['mdp', 'seed'], columns='mode', values='behaviour')
    d = (w[new] - w[old]).to_numpy()
    boot = np.random.default_rng(0).choice(d, (10_000, len(d))).mean(1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    cpu = df.groupby('mode').cpu_s.sum()
    print(f"normalised behaviour regret, {new} - {old}: mean {d.mean():+.4f}, 95% bootstrap CI [{lo:+.4f}, {hi:+.4f}] over {len(d)} (MDP, seed) cells")
    print(f"CPU seconds, all runs: {old} {cpu[old]:,.1f}, {new} {cpu[new]:,.1f} ({cpu[old] / cpu[new]:.1f}x less)")

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--seeds', type=int, default=5); ap.add_argument('--steps', type=int, default=500_000)
    ap.add_argument('--agent', default='PSRLEpisodic', choices=('PSRLEpisodic', 'TSDEContinuous', 'PSRLContinuous'))
    ap.add_argument('--mdps', nargs='*', default=None); ap.add_argument('--csv', default=None)
    a = ap.parse_args()
    df = main(a.agent, a.seeds, a.steps, a.mdps or list(DEFAULT_MDPS if a.agent == 'PSRLEpisodic' else CONTINUOUS_MDPS))
    if a.csv: df.to_csv(a.csv, index=False)
    report(df, a.steps, a.agent)
