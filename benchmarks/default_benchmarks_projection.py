"""Projection of the four default benchmarks (every benchmarked tabular agent, 20 seeds, 500,000 steps) from measured samples.

The sample: every MDP instance of the four default benchmarks (80 MDPs, seed 0) with every agent of its setting
(QLearningEpisodic and PSRLEpisodic on the episodic ones; QLearningContinuous, PSRLContinuous and UCRL2Continuous on the
continuous ones), cached best hyperparameters, one run of `--steps` steps (default 5,000) logging every 100 steps as the
default experiment configuration does, through the package's interaction loop (`MDPLoop`), on `--cores` processes. Each
worker first runs every agent once on a small MDP, so numba's compilation (once per agent and process, reported) is
not in the sample. The learning throughput of a run is the loop's own steps per second at its last log row while the
agent was still learning (before the optimality early stop, if the stop fired within the sample); its projected time
is building the MDP and the agent + the loop's set-up + the loop's seconds at step 500,000, learning throughout, from a fit
`elapsed(t) = a t + b ln t + c` (non-negative coefficients) to the later half of the sampled log rows (the `ln t` term
absorbs the replanning of agents whose episodes double; a flat projection at the sample's last throughput, an upper
bound for them, is printed next to it). A
run whose projected loop time exceeds the 600 s budget would be cut (its agent would stop learning). The figures with
the optimality early stop, where it fired in the sample, are printed separately and marked as such; they are not a
projection of the 500,000-step runs (there the stop cannot fire before step 100,000).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/default_benchmarks_projection.py [--steps 5000] [--cores 2] [--benchmarks NAME ...]
"""
import os, sys, time, argparse
import multiprocessing as mp
import numpy as np
import pandas as pd
from scipy.optimize import nnls
from colosseum_nb.benchmark.benchmark import ColosseumDefaultBenchmark
from colosseum_nb.benchmark.run import cached_agent_gin
from colosseum_nb.experiment import ExperimentInstance, ExperimentConfig, MDPLoop
from colosseum_nb.experiment.experiment_instances import build_mdp_and_agent

MAIN = ('CONTINUOUS_ERGODIC', 'CONTINUOUS_COMMUNICATING', 'EPISODIC_ERGODIC', 'EPISODIC_COMMUNICATING')
AGENTS = dict(episodic=('QLearningEpisodic', 'PSRLEpisodic'), continuous=('QLearningContinuous', 'PSRLContinuous', 'UCRL2Continuous'))
T, SEEDS, BUDGET, LOG_EVERY = 500_000, 20, 600.0, 100
_WARM = {}

def _instance(bench, cfg, agent, steps):
    return ExperimentInstance(0, cfg.mdp_class, cfg.scope, None, agent, 'prms_0', None, '/nonexistent', ExperimentConfig(1, steps, float('inf'), LOG_EVERY),
                              mdp_gin_text=bench.mdps_gin_configs[cfg.mdp_class], agent_gin_text=cached_agent_gin(agent))

def _warm(agent, warm_job):
    "Compile the loop for `agent` in this process (once), on a small MDP; the seconds it took."
    if agent not in _WARM:
        t0 = time.perf_counter(); mdp, ag = build_mdp_and_agent(warm_job); MDPLoop(mdp, ag).run(200, LOG_EVERY)
        _WARM[agent] = time.perf_counter() - t0
    return _WARM[agent]

def measure(job):
    "One sampled run: its throughput while learning, set-up seconds, and where the optimality stop fired."
    bname, inst, warm_job = job
    warm = _warm(inst.agent_class_name, warm_job)
    t0 = time.perf_counter(); mdp, agent = build_mdp_and_agent(inst); t_build = time.perf_counter() - t0
    loop = MDPLoop(mdp, agent)
    t0 = time.perf_counter(); loop.run(inst.experiment_config.n_steps, LOG_EVERY); t_run = time.perf_counter() - t0
    logs, stop = loop.logs, loop.stopped_optimal_at
    learning = logs[logs.steps <= stop] if stop >= 0 and (logs.steps <= stop).any() else logs
    sps_learn, last = float(learning.steps_per_second.iloc[-1]), logs.iloc[-1]
    loop_s = float(last.steps / last.steps_per_second) if last.steps_per_second > 0 else float('nan')
    return dict(benchmark=bname, mdp=f'{inst.mdp_scope}-{inst.mdp_class_name}', agent=inst.agent_class_name, n_states=mdp.n_states,
                sps_learning=sps_learn, sps_as_run=float(last.steps_per_second), stop=stop, setup_s=t_build + max(t_run - loop_s, 0.0),
                compile_s=warm, fit_loop_s=fit_elapsed(learning))

def fit_elapsed(logs):
    "Loop seconds at step T from a fit `elapsed(t) = a t + b ln t + c` (a, b, c >= 0) to the later half of the sampled rows."
    ok = logs.steps_per_second.to_numpy(float) > 0
    t = logs.steps.to_numpy(float)[ok]
    e = t / logs.steps_per_second.to_numpy(float)[ok]
    keep = t >= t.max() / 2
    if keep.sum() < 3: return float('nan')
    coef, _ = nnls(np.stack([t[keep], np.log(t[keep]), np.ones(int(keep.sum()))], 1), e[keep])
    return float(coef @ [T, np.log(T), 1.0])

def jobs(names, steps):
    out = []
    for n in names:
        m = ColosseumDefaultBenchmark[n]; b = m.get_benchmark()
        cfgs = b.mdp_configs
        smallest = cfgs[0]
        for agent in AGENTS['episodic' if m.is_episodic else 'continuous']:
            warm = _instance(b, smallest, agent, 200)
            out += [(m.short_name, _instance(b, c, agent, steps), warm) for c in cfgs]
    return out

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--steps', type=int, default=5000); ap.add_argument('--cores', type=int, default=os.cpu_count())
    ap.add_argument('--benchmarks', nargs='+', default=list(MAIN), choices=MAIN)
    a = ap.parse_args()
    js = jobs(a.benchmarks, a.steps)
    print(f"sample: {len(js)} runs (every MDP of {', '.join(a.benchmarks)}, seed 0, every benchmarked agent of the setting), "
          f"{a.steps:,} steps each, log every {LOG_EVERY}, {a.cores} processes; load average {os.getloadavg()[0]:.1f}", flush=True)
    t0 = time.perf_counter()
    with mp.get_context('fork').Pool(a.cores) as pool: rows = pool.map(measure, js, chunksize=1)
    df = pd.DataFrame(rows)
    print(f"sampled in {time.perf_counter() - t0:.0f} s; load average {os.getloadavg()[0]:.1f}\n")
    for kind, loop in (('fit', df.fit_loop_s), ('flat', T / df.sps_learning)):
        df[f'run_{kind}'] = df.setup_s + loop
        df[f'cut_{kind}'] = loop > BUDGET - 0.5
    g = df.groupby(['benchmark', 'agent'], sort=False)
    table = pd.DataFrame({'MDPs': g.size(), 'median steps/s (sample, learning)': g.sps_learning.median().round(0),
                          'slowest run (s)': g.run_fit.max().round(0), 'CPU hours, 20 seeds': (g.run_fit.sum() * SEEDS / 3600).round(2),
                          'runs cut at 600 s': g.cut_fit.sum() * SEEDS,
                          'CPU hours (flat)': (g.run_flat.sum() * SEEDS / 3600).round(1), 'cut (flat)': g.cut_flat.sum() * SEEDS})
    print("Projection, learning throughout (500,000 steps, 20 seeds). Headline: elapsed(t) = a t + b ln t + c fitted to the later half of "
          "each sampled run (replanning agents replan less and less often); 'flat': the sample's last throughput held for 500,000 steps "
          "(an upper bound for agents whose episodes grow):")
    with pd.option_context('display.width', 250): print(table.to_string())
    for kind in ('fit', 'flat'):
        total_h = df[f'run_{kind}'].sum() * SEEDS / 3600
        print(f"total ({kind}): {total_h:.1f} CPU hours, {total_h / a.cores:.1f} h on {a.cores} cores (ideal scheduling); "
              f"runs the 600 s budget would cut: {int(df[f'cut_{kind}'].sum()) * SEEDS} of {len(df) * SEEDS}")
    if df.cut_fit.any(): print("would be cut (fit):", ', '.join(f"{r.agent} on {r.benchmark}/{r.mdp} ({r.run_fit:.0f} s)" for r in df[df.cut_fit].itertuples()))
    print(f"numba compilation per agent and process (not in the runs): " + ', '.join(f"{a_} {s:.1f} s" for a_, s in df.groupby('agent').compile_s.max().items()))
    early = df[df.stop >= 0]
    print(f"\n[with the optimality early stop, as run in the {a.steps:,}-step sample] the stop fired in {len(early)} of {len(df)} runs; "
          f"median steps/s as run {df.sps_as_run.median():.0f} vs {df.sps_learning.median():.0f} learning throughout")

if __name__ == '__main__': main()
