"""The continuous-communicating default benchmark, run for real: every run must complete its 500,000 steps.

20 MDPs (`benchmark_continuous_communicating/mdp_configs`), 3 seeds, the three continuous agents with their cached best
hyperparameters (`benchmark_data/cached_hyperparameters/<Agent>.gin`), the package's default experiment configuration
(500,000 steps, regret logged every 100 steps, a time budget of 600 s per run) except `n_seeds=3`. The runs go through
`colosseum_nb.experiment.run_experiment_instances(..., n_cores=2)`, one agent after the other so that each agent's wall
time is measured; within an agent the longest runs (largest MDPs) start first.

Then every run is checked: its CSV exists, its last logged step is n_steps - 1 = 499,999, and the time budget did
not cut it. The script prints, per agent, the wall time and the slowest runs (seconds from the loop's own clock),
and the total wall time. Without a folder argument the results go to a temporary folder, removed at the end; with
one, they stay there and a second invocation skips the runs already done (`--fresh` starts over).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/continuous_communicating_500k.py [RESULT_FOLDER] [--fresh]
        [--agents QLearningContinuous,PSRLContinuous,UCRL2Continuous] [--seeds 3] [--cores 2] [--steps N (smoke test)]
"""
import os, sys, time, shutil, tempfile, dataclasses
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
from pathlib import Path
import pandas as pd
from colosseum_nb.benchmark.benchmark import (ColosseumDefaultBenchmark, benchmark_mdp_configs, DEFAULT_EXPERIMENT_CONFIG,
                                              CACHED_HYPERPARAMETERS, load_experiment_config)
from colosseum_nb.experiment import ExperimentInstance, run_experiment_instances
from colosseum_nb.experiment.experiment_instances import build_mdp_and_agent

BENCHMARK = ColosseumDefaultBenchmark.CONTINUOUS_COMMUNICATING
AGENTS = ('QLearningContinuous', 'PSRLContinuous', 'UCRL2Continuous')

def experiment_config(n_seeds):
    "The package's default experiment configuration with `n_seeds` seeds."
    return dataclasses.replace(load_experiment_config(DEFAULT_EXPERIMENT_CONFIG), n_seeds=n_seeds)

def make_instances(agent, result_folder, config):
    "The instances of one agent: every MDP of the benchmark, every seed, largest MDPs first."
    out = []
    for c in benchmark_mdp_configs(BENCHMARK):
        for seed in range(config.n_seeds):
            out.append(ExperimentInstance(seed=seed, mdp_class_name=c.mdp_class, mdp_scope=c.scope,
                                          mdp_gin_config_file=str(BENCHMARK.mdp_configs_folder / f'{c.mdp_class}.gin'),
                                          agent_class_name=agent, agent_scope='prms_0',
                                          agent_gin_config_file=str(CACHED_HYPERPARAMETERS / f'{agent}.gin'),
                                          result_folder=str(result_folder), experiment_config=config))
    sizes = {}
    for inst in out:  # builds each MDP once (and checks that every agent configuration parses and builds)
        key = (inst.mdp_class_name, inst.mdp_scope)
        if key not in sizes: sizes[key] = build_mdp_and_agent(inst)[0].n_states
    return sorted(out, key=lambda i: -sizes[(i.mdp_class_name, i.mdp_scope)]), sizes

def check_run(inst, n_steps):
    "(problem or None, seconds of the run from its log, last step)."
    p = inst.result_path
    if not p.exists(): return 'no CSV', None, None
    df = pd.read_csv(p)
    last = int(df['steps'].iloc[-1])
    secs = last / df['steps_per_second'].iloc[-1] if df['steps_per_second'].iloc[-1] > 0 else float('nan')
    cut = inst.log_folder / f'seed{inst.seed}_time_exceeded.txt'
    if cut.exists(): return f'cut by the time budget: {cut.read_text().strip()}', secs, last
    if last != n_steps - 1: return f'last step {last:,} instead of {n_steps - 1:,}', secs, last
    return None, secs, last

def main(folder=None, fresh=False, agents=AGENTS, n_seeds=3, n_cores=2, n_steps=None):
    tmp = folder is None
    result_folder = Path(tempfile.mkdtemp(prefix='cc500k_')) if tmp else Path(folder)
    if fresh and result_folder.exists() and not tmp: shutil.rmtree(result_folder)
    config = experiment_config(n_seeds)
    if n_steps: config = dataclasses.replace(config, n_steps=n_steps)  # shorter runs, for a smoke test
    print(f"{BENCHMARK.folder_name}: {config.n_steps:,} steps, {n_seeds} seeds, log every {config.log_performance_indicators_every}, "
          f"time budget {config.max_interaction_time_s:.0f} s per run, {n_cores} cores; results in {result_folder}", flush=True)
    walls, problems, per_run = {}, [], {}
    t_all = time.perf_counter()
    try:
        for agent in agents:
            insts, sizes = make_instances(agent, result_folder, config)
            if agent == agents[0]:
                print(f"{len(sizes)} MDPs, {sum(sizes.values()):,} states in all (largest {max(sizes.values())})", flush=True)
            t0 = time.perf_counter()
            run_experiment_instances(insts, n_cores=n_cores, skip_completed=True)
            walls[agent] = time.perf_counter() - t0
            rows, bad = [], []
            for inst in insts:
                problem, secs, last = check_run(inst, config.n_steps)
                if problem: bad.append(f"{inst.experiment_label} seed {inst.seed}: {problem}")
                rows.append((secs, inst.experiment_label.split('____')[0], inst.seed, sizes[(inst.mdp_class_name, inst.mdp_scope)]))
            per_run[agent] = rows; problems += bad
            ok = len(insts) - len(bad)
            slow = sorted((r for r in rows if r[0] is not None), key=lambda r: -r[0])[:3]
            print(f"{agent}: wall {walls[agent]:,.1f} s for {len(insts)} runs on {n_cores} cores "
                  f"({sum(r[0] for r in rows if r[0] is not None):,.1f} s of runs); {ok}/{len(insts)} complete; slowest: "
                  + ', '.join(f"{m} seed {s} (S={S}) {t:,.1f} s" for t, m, s, S in slow), flush=True)
    finally:
        total = time.perf_counter() - t_all
        if tmp: shutil.rmtree(result_folder, ignore_errors=True)
    print(f"\n{'agent':<22}{'runs':>6}{'wall s':>10}{'sum of runs s':>15}{'slowest run s':>15}")
    for agent, rows in per_run.items():
        secs = [r[0] for r in rows if r[0] is not None]
        print(f"{agent:<22}{len(rows):>6}{walls[agent]:>10,.1f}{sum(secs):>15,.1f}{max(secs, default=float('nan')):>15,.1f}")
    print(f"total wall time: {total:,.1f} s ({total / 60:.1f} min)")
    n = sum(len(r) for r in per_run.values())
    if problems:
        print(f"{len(problems)} of {n} runs did NOT complete all their steps:\n  " + '\n  '.join(problems))
        return 1
    print(f"all {n} runs completed all {config.n_steps:,} steps (last logged step {config.n_steps - 1:,}), none cut by the time budget")
    return 0

if __name__ == '__main__':
    args = sys.argv[1:]
    opt = lambda k, d: args[args.index(k) + 1] if k in args else d
    pos = [a for i, a in enumerate(args) if not a.startswith('--') and (i == 0 or args[i - 1] not in ('--agents', '--seeds', '--cores', '--steps'))]
    sys.exit(main(pos[0] if pos else None, '--fresh' in args, tuple(opt('--agents', ','.join(AGENTS)).split(',')),
                  int(opt('--seeds', 3)), int(opt('--cores', 2)), int(opt('--steps', 0)) or None))
