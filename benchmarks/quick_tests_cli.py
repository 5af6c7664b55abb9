"""The main job from the command line: `colosseum_nb run` on the two quick tests, every built-in agent, fresh process.

Runs `colosseum_nb run --results <folder> [--cores N]` exactly as README's first command does (2 seeds of 50,000 steps
per MDP, 7 MDPs per quick test; the three episodic agents on the episodic quick test and the four continuous agents on the
continuous one: 98 runs), prints its wall time against the 3-minute target, the machine's load average before and
after (the machine may be shared: timings under load are not the machine's speed), the seconds of the runs per agent
from their own logs (the loop's clock, so numba compilation in each worker process is not in them: the difference with
the wall time is start-up, compilation and scheduling), and the wall time of a second invocation, which finds every run
done and only prints the summary.

`--cold` runs it as on a fresh install: on a copy of the package without numba's caches (no `__pycache__`, an empty loop
cache), so the main job's ahead-of-time compile of the 7 agents' loops (on its workers, in parallel) is in the wall time;
without it the caches of the package as it is are used (run it once before to time a warm start).

`--emission-map MAP --agents NAME ...` runs the non-tabular quick tests instead (Colosseum's quick tests seen through the
map, e.g. `--emission-map StateInfo --agents DQNContinuous ... ActorCriticRNNEpisodic`, every deep agent); the runs the
quick tests' time budget cut (30 s per continuous run, 45 s per episodic one) are counted per agent, with the mean
share of its steps a cut run learnt in (`cut_runs_learnt`). `--device cuda` plays the deep agents' batches on a GPU.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/quick_tests_cli.py [--cores N] [--keep] [--cold] [--emission-map MAP --agents NAME ...] [--device cpu|cuda]
"""
import os, sys, time, shutil, tempfile, subprocess, argparse, importlib.util
from pathlib import Path
import pandas as pd

TARGET_S = 180

def cold_package(work):
    "Environment variables making a fresh process import a copy of the package without any numba cache, made in `work`."
    src = Path(importlib.util.find_spec('colosseum_nb').origin).parent
    shutil.copytree(src, work / 'pkg' / 'colosseum_nb', ignore=shutil.ignore_patterns('__pycache__', '_loop_cache'))
    return dict(PYTHONPATH=str(work / 'pkg'), COLOSSEUM_NB_LOOP_CACHE=str(work / 'loops'))

def cli(args, cwd, extra_env=None):
    "Run the command line in a fresh process; (seconds, CompletedProcess)."
    env = dict(os.environ, NUMBA_NUM_THREADS=os.environ.get('NUMBA_NUM_THREADS', '1'), **(extra_env or {}))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, '-m', 'colosseum_nb', *args], cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - t0, r

def run_seconds(results):
    "Seconds of every run from its log (last step / steps per second), per agent; the runs cut by their time budget, and the share of its steps a cut run learnt in."
    from colosseum_nb.experiment.logs import time_exceeded_runs
    rows = []
    for bench in Path(results).iterdir():
        cuts = time_exceeded_runs(bench) if (bench / 'logs').is_dir() else {}
        for p in bench.glob('logs/*/seed*_logs.csv'):
            last, seed = pd.read_csv(p).iloc[-1], int(p.name[len('seed'):-len('_logs.csv')])
            steps, cut = last.steps + 1, cuts.get((p.parent.name, seed))
            rows.append(dict(agent=p.parent.name.split('____')[1].split('-')[1], cut=cut is not None,
                             learnt=(cut + 1) / steps if cut is not None else float('nan'),
                             seconds=last.steps / last.steps_per_second if last.steps_per_second > 0 else float('nan')))
    df = pd.DataFrame(rows)
    return df.groupby('agent').agg(runs=('seconds', 'count'), run_seconds=('seconds', 'sum'), slowest_run=('seconds', 'max'), cut_by_budget=('cut', 'sum'),
                                   cut_runs_learnt=('learnt', 'mean'))

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--cores', type=int, help='local processes (default: every core)')
    ap.add_argument('--keep', action='store_true', help='keep the results folder')
    ap.add_argument('--cold', action='store_true', help="a copy of the package without numba's caches, as on a fresh install")
    ap.add_argument('--emission-map', help='run the non-tabular quick tests through this emission map (with --agents)')
    ap.add_argument('--agents', nargs='+', help='the agents to run (default: every built-in agent)')
    ap.add_argument('--device', help="the deep agents' device (`colosseum_nb run --device`: cpu, cuda)")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix='quick_tests_'))
    extra = (['--cores', str(a.cores)] if a.cores else []) + (['--emission-map', a.emission_map] if a.emission_map else []) + (['--agents', *a.agents] if a.agents else []) + (['--device', a.device] if a.device else [])
    what = f"agents {' '.join(a.agents)}" if a.agents else 'every built-in agent'
    if a.emission_map: what += f", emission map {a.emission_map}"
    if a.device: what += f", device {a.device}"
    try:
        env = cold_package(work) if a.cold else None
        load0 = os.getloadavg()[0]
        wall, r = cli(['run', '--results', 'results', '--no-progress', *extra], work, env)
        load1 = os.getloadavg()[0]
        if r.returncode != 0: sys.exit(f"colosseum_nb run failed ({r.returncode}):\n{r.stderr[-3000:]}")
        print(r.stdout)
        print(f"`colosseum_nb run` (two quick tests, {what}, {os.cpu_count()} cores, {'cold' if a.cold else 'warm'} cache): {wall:.1f} s wall "
              f"{'' if a.agents or a.emission_map else f'(target for the default job: under {TARGET_S} s)'}; load average {load0:.1f} before, {load1:.1f} after")
        print(run_seconds(work / 'results').round(1).to_string())
        wall2, r2 = cli(['run', '--results', 'results', '--no-progress', *extra], work, env)
        print(f"second invocation (every run done, summary only): {wall2:.1f} s")
    finally:
        if a.keep: print(f"results kept in {work / 'results'}")
        else: shutil.rmtree(work, ignore_errors=True)

if __name__ == '__main__': main()
