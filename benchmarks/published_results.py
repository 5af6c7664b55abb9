"""Compute the baselines' results that the package ships (`colosseum_nb.analysis.published`), seed by seed.

Runs the built-in tabular agents on Colosseum's four default benchmarks with Colosseum's settings (500,000 steps,
a log every 100 steps, 20 seeds, the cached hyperparameters) and the package's defaults (learning throughout, the
defined measures), through the runner that `colosseum_nb run` uses, into an ordinary results root: every benchmark's
folder is the one `colosseum_nb run --benchmark <name> --results ROOT` would write, so either resumes the other.
Seeds go in order (seed 0 of every setting, then seed 1, ...) so that an interrupted computation leaves whole seeds;
after each seed the finished runs are compacted into the shipped tables (`--data`), which is what gets committed.

    python benchmarks/published_results.py --results ~/published_runs --seeds 20            # Colosseum's seven agents
    python benchmarks/published_results.py --results ~/published_runs --seeds 5 --baselines # the other baselines
    python benchmarks/published_results.py --results ~/published_runs --compact-only        # rewrite the tables only
    python benchmarks/published_results.py --results ~/published_runs --timings             # what the runs cost

`--timings` prints, from the runs' own logs (the last row's `steps_per_second`), the loop seconds of every setting and
agent summed over the seeds found, and the loop seconds of a whole seed of each setting (the fastest, the median and the
slowest seed: the machine may have been shared while some seeds ran).
"""
import argparse, subprocess, sys, time
from pathlib import Path

from colosseum_nb import config
from colosseum_nb.agent.agents import AGENTS, DEFAULT_RUN_AGENTS
from colosseum_nb.agent.agents.episodic import EPISODIC_BASELINES
from colosseum_nb.agent.agents.infinite_horizon import CONTINUOUS_BASELINES
from colosseum_nb.benchmark import ColosseumDefaultBenchmark
from colosseum_nb.benchmark.run import agents_configs_from, instantiate_and_get_exp_instances_from_agents_and_benchmarks, run_instances
from colosseum_nb.experiment.experiment_instances import local_client
from colosseum_nb.analysis.published import compact_results, load_published, PUBLISHED_FOLDER

SETTINGS = ('continuous_communicating', 'continuous_ergodic', 'episodic_communicating', 'episodic_ergodic')

def commit() -> str:
    "The commit of this checkout (with '+dirty' when the package's sources differ from it)."
    root = Path(__file__).resolve().parents[1]
    head = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=root, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(['git', 'diff', '--quiet', 'HEAD', '--', 'colosseum_nb'], cwd=root).returncode
    return head + ('+dirty' if dirty else '')

def pairs(agents, settings):
    "The `(agents_configs, benchmark)` pairs: each setting with the named agents of its kind (cached hyperparameters)."
    out = []
    for s in settings:
        b = ColosseumDefaultBenchmark[s.upper()].get_benchmark()
        classes = [a for a in agents if a.is_episodic() == b.is_episodic]
        if classes: out.append((agents_configs_from(classes), b))
    return out

def shipped(folders, data) -> set:
    "(benchmark, mdp, agent, seed) of every run already in the shipped tables (they are not run again)."
    out = set()
    for f in folders:
        try: fin = load_published(f.name, curves=False, data=data)
        except ValueError: continue
        out |= {(f.name, str(m), str(a), int(s)) for m, a, s in zip(fin.mdp, fin.agent, fin.seed)}
    return out

def key(i) -> tuple:
    "The (benchmark, mdp, agent, seed) of an experiment instance."
    return (Path(i.result_folder).name, f'{i.mdp_scope}-{i.mdp_class_name}', f'{i.agent_scope}-{i.agent_class_name}', i.seed)

def timings(root:Path, settings) -> None:
    "Print the loop seconds of the runs under `root` per setting and agent, and per whole seed of each setting."
    import re
    import pandas as pd
    rows = []
    for s in settings:
        for f in (root / f'benchmark_{s}' / 'logs').glob('*/seed*_logs.csv'):
            last = pd.read_csv(f, usecols=['steps', 'steps_per_second']).iloc[-1]
            rows.append(dict(setting=s, agent=f.parent.name.split('-')[-1], seed=int(re.match(r'seed(\d+)_', f.name)[1]),
                             seconds=(last.steps + 1) / last.steps_per_second))
    if not rows: print(f"{root}: no logs"); return
    df = pd.DataFrame(rows)
    per = df.groupby(['setting', 'agent']).agg(runs=('seconds', 'size'), loop_seconds=('seconds', 'sum'), mean_per_run=('seconds', 'mean'))
    print(per.round(1).to_string())
    seeds = df.groupby(['setting', 'seed']).agg(runs=('seconds', 'size'), seconds=('seconds', 'sum')).reset_index()
    full = seeds[seeds.runs == seeds.groupby('setting').runs.transform('max')]   # whole seeds only
    print(full.groupby('setting').seconds.agg(seeds='size', fastest='min', median='median', slowest='max', total='sum').round(0).to_string())

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--results', required=True, help='results root (one folder per benchmark inside)')
    p.add_argument('--data', default=str(PUBLISHED_FOLDER), help='where the compact tables go')
    p.add_argument('--seeds', type=int, default=20, help='seeds 0..N-1, in order')
    p.add_argument('--first-seed', type=int, default=0, help='the first seed to run (runs already shipped are skipped anyway)')
    p.add_argument('--settings', nargs='+', default=list(SETTINGS), choices=SETTINGS)
    p.add_argument('--baselines', action='store_true', help="the other baselines instead of Colosseum's seven agents")
    p.add_argument('--cores', type=int, default=2)
    p.add_argument('--compact-only', action='store_true', help='only merge the runs of --results into the shipped tables')
    p.add_argument('--made-by', help='the commit that made the runs of --results (default: this checkout\'s)')
    p.add_argument('--timings', action='store_true', help="only print the loop seconds of the runs of --results")
    a = p.parse_args(argv)
    if a.timings: return timings(Path(a.results), a.settings)
    names = [c.__name__ for c in EPISODIC_BASELINES + CONTINUOUS_BASELINES] if a.baselines else list(DEFAULT_RUN_AGENTS)
    agents = [AGENTS[n] for n in names]
    config.set_experiments_folder(a.results)
    made_by = a.made_by or commit()
    print(f"agents: {', '.join(names)}; settings: {', '.join(a.settings)}; commit {made_by}", flush=True)
    insts = instantiate_and_get_exp_instances_from_agents_and_benchmarks(pairs(agents, a.settings))
    folders = sorted({Path(i.result_folder) for i in insts})
    if not a.compact_only:
        done = shipped(folders, a.data)
        with local_client(a.cores) as client:
            for seed in range(a.first_seed, a.seeds):
                t0 = time.perf_counter()
                todo = [i for i in insts if i.seed == seed and key(i) not in done]
                if not todo: continue
                run_instances(todo, client=client, progress=False, desc=f'seed {seed}')
                print(f"seed {seed}: {len(todo)} runs in {time.perf_counter() - t0:.0f} s", flush=True)
                for f in {Path(i.result_folder) for i in todo}: compact_results(f, a.data, made_by=made_by)
    for f in folders:
        if any(f.glob('logs/*/seed*_logs.csv')): print(compact_results(f, a.data, made_by=made_by), flush=True)

if __name__ == '__main__':
    sys.exit(main())
