"""How well the package orders a benchmark's runs on many workers, simulated from the runs' real loop seconds.

A results folder (or several) written by `colosseum_nb run` records each run's loop seconds (its log's last row: steps /
steps_per_second). This script replays the runs on W workers (2, 16, 64, 256 by default) and prints the wall time of:

* the package's dispatcher (`run_experiment_instances`): a `RunQueue` of the runs with their estimated costs
  (`estimated_cost`: the agent, the MDP's states and actions, the steps) and their pairs (`run_pair`: the seeds of one
  agent on one MDP configuration), tasks submitted `_ahead(W)` at a time and each finished task's seconds told to the
  queue before the next is asked for -- one probe run of every pair first, then the rest by what its pair took;
* the estimates alone: one run per task, the costliest estimate first, nothing learnt (how the package ordered runs
  before it learnt from the finished ones);
* longest-first on the true seconds (one run per task, Graham's LPT: what a perfect cost predictor would give);
* the lower bound max(total / W, longest run), which no order beats.

A task goes to the first free worker; its seconds are the sum of its runs' true seconds.

Worker start-up and the scheduler's overhead per task are not modelled (a few ms per task in benchmarks/cluster_overhead.py).
The folder's runs should come from one machine in one job: loop seconds measured on a busy machine are inflated alike.

    .venv/bin/python benchmarks/schedule_simulation.py RESULTS_FOLDER [RESULTS_FOLDER ...] [--workers 2 16 64 256]
"""
import sys, heapq, argparse, itertools
from collections import deque
from pathlib import Path
import pandas as pd

def runs_of(folder)->pd.DataFrame:
    "One row per run log of a benchmark results folder: identifiers, the package's estimated cost and the true loop seconds."
    from colosseum_nb.experiment.config import load_experiment_config
    from colosseum_nb.experiment.experiment_instance import ExperimentInstance
    from colosseum_nb.experiment.experiment_instances import estimated_cost
    folder = Path(folder); cfg = load_experiment_config(folder / 'experiment_config.yml')
    rows = []
    for csv in sorted(folder.glob('logs/*/seed*_logs.csv')):
        mdp, agent = csv.parent.name.split('____')
        (ms, mc), (ag_s, ag_c) = mdp.split('-', 1), agent.split('-', 1)
        seed = int(csv.name[4:].split('_')[0])
        inst = ExperimentInstance(seed, mc, ms, str(folder / 'mdp_configs' / f'{mc}.gin'), ag_c, ag_s,
                                  str(folder / 'agents_configs' / f'{ag_c}.gin'), str(folder), cfg)
        last = pd.read_csv(csv, usecols=['steps', 'steps_per_second']).iloc[-1]
        rows.append(dict(folder=folder.name, mdp=mdp, agent=ag_c, pair=(str(folder), mdp, agent), seed=seed, estimate=estimated_cost(inst),
                         seconds=float(last.steps / last.steps_per_second) if last.steps_per_second > 0 else float('nan')))
    return pd.DataFrame(rows)

def makespan(tasks, workers:int)->float:
    "Wall time of list scheduling: each task (its seconds), in the given order, starts on the first free worker."
    free = [0.0] * workers
    for d in tasks: heapq.heappush(free, heapq.heappop(free) + d)
    return max(free)

def package_schedule(df, workers:int)->tuple:
    "(wall time, tasks) of the package's dispatcher on `workers` workers: its `RunQueue`, learning each task's true seconds as it finishes."
    from colosseum_nb.experiment.schedule import RunQueue, tasks_ahead as _ahead
    q, sec = RunQueue(dict(zip(df.index, df.estimate)), dict(zip(df.index, df.pair)), workers), df.seconds.to_dict()
    queued, running, ids, now, n = deque(), [], itertools.count(), 0.0, 0
    while True:
        while len(queued) + len(running) < _ahead(workers) and (t := q.pop(now)) is not None: queued.append(t); n += 1
        while queued and len(running) < workers:
            t = queued.popleft(); heapq.heappush(running, (now + sum(sec[k] for k in t), next(ids), t))
        if not running: return now, n
        now, _, t = heapq.heappop(running)
        q.observe([(k, 'done', None, None, sec[k]) for k in t])

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('folders', nargs='+', metavar='RESULTS_FOLDER', help='benchmark results folders (each holding logs/)')
    ap.add_argument('--workers', type=int, nargs='+', default=[2, 16, 64, 256])
    a = ap.parse_args()
    df = pd.concat([runs_of(f) for f in a.folders], ignore_index=True).dropna(subset=['seconds'])
    if df.empty: raise SystemExit(f"no run logs under {', '.join(a.folders)}")
    total, longest = df.seconds.sum(), df.seconds.max()
    print(f"{len(df)} runs from {', '.join(sorted(set(df.folder)))}: {total:,.0f} loop seconds, the longest {longest:,.1f} s "
          f"({df.loc[df.seconds.idxmax(), 'agent']} on {df.loc[df.seconds.idxmax(), 'mdp']} seed {df.loc[df.seconds.idxmax(), 'seed']})")
    r = df.seconds.corr(df.estimate, method='spearman')
    print(f"the package's cost estimate against the true seconds: rank correlation {r:.3f}")
    print(f"\n{'workers':>8}{'lower bound s':>15}{'package s':>12}{'/ bound':>9}{'tasks':>7}{'estimates only s':>18}{'/ bound':>9}{'longest-first s':>17}{'/ bound':>9}")
    for w in a.workers:
        bound = max(total / w, longest)
        pkg, n = package_schedule(df, w)
        est = makespan(df.sort_values('estimate', ascending=False, kind='stable').seconds, w)
        lpt = makespan(sorted(df.seconds, reverse=True), w)
        print(f"{w:>8}{bound:>15,.1f}{pkg:>12,.1f}{pkg / bound:>9.3f}{n:>7}{est:>18,.1f}{est / bound:>9.3f}{lpt:>17,.1f}{lpt / bound:>9.3f}")
    return 0

if __name__ == '__main__': sys.exit(main())
