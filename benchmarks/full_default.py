"""The four default benchmarks run as a user runs them: `colosseum_nb run --benchmark NAME` in a fresh process per setting.

Each setting (or those named with `--settings`) runs through the package's main job (`python -m colosseum_nb run
--benchmark NAME --no-analysis --results TMP --cores N`, which calls `colosseum_nb.benchmark.run.run_benchmarks` and so
`colosseum_nb.experiment.run_experiment_instances`), with every built-in agent of its setting (or `--agents`), the
benchmark's own experiment configuration (20 seeds, 500,000 steps, log every 100, 600 s budget per run) unless
`--seeds` / `--steps` shorten it for a smoke test. Agents learn throughout, as the main job runs them.

Printed per setting: wall seconds, CPU-seconds of the job and all its worker processes (`RUSAGE_CHILDREN`), the main
process's peak resident memory (polled every 0.2 s), and per agent: runs, the sum and the largest of the runs' own
loop seconds (from each log's last row: steps / steps_per_second), the slowest runs, and the runs the time budget cut
(`seed<N>_time_exceeded.txt`). With fewer seeds, the totals are projected to 20
seeds (runs of 500,000 steps only: a shortened run's seconds per step are not those of a full run), so a sample of
`--seeds 1` measures real 500,000-step runs and projects 20 seeds. On a shared machine the loop seconds are wall
seconds, inflated by the other processes; the CPU-seconds of the job are the figure to compare.

The machine may be shared: the script prints the load average before and after each setting; compare figures only
taken in the same conditions.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/full_default.py [--settings episodic_communicating ...]
        [--agents PSRLEpisodic ...] [--seeds N] [--steps N] [--cores 2] [--keep FOLDER]
"""
import os, sys, time, argparse, resource, subprocess, tempfile, shutil
from pathlib import Path
import psutil
import pandas as pd
from colosseum_nb.experiment.experiment_instances import agent_class_from_name

SETTINGS = ('continuous_ergodic', 'continuous_communicating', 'episodic_ergodic', 'episodic_communicating')
FULL_SEEDS, FULL_STEPS = 20, 500_000

def _cpu_children()->float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def run_setting(name, root, agents, seeds, steps, cores):
    "Run one setting in a fresh `colosseum_nb run` process; (wall s, CPU s, peak RSS MiB of the main process, return code)."
    cmd = [sys.executable, '-m', 'colosseum_nb', 'run', '--benchmark', name, '--no-analysis', '--results', str(root), '--cores', str(cores)]
    if agents:
        agents = [n for n in agents if agent_class_from_name(n).is_episodic() == name.startswith('episodic')]
        if not agents: return None
        cmd += ['--agents', *agents]
    if seeds: cmd += ['--seeds', str(seeds)]
    if steps: cmd += ['--steps', str(steps)]
    env = dict(os.environ, NUMBA_NUM_THREADS='1')
    cpu0, t0 = _cpu_children(), time.perf_counter()
    with tempfile.TemporaryFile('w+') as log:   # the job's summary; its progress bar goes to this script's stderr
        p = subprocess.Popen(cmd, env=env, stdout=log, stderr=None, text=True)
        ps, peak = psutil.Process(p.pid), 0
        while p.poll() is None:
            try: peak = max(peak, ps.memory_info().rss)
            except psutil.Error: pass
            time.sleep(0.2)
        log.seek(0); out = log.read()
    return time.perf_counter() - t0, _cpu_children() - cpu0, peak / 2 ** 20, p.returncode, out

def runs_of(folder)->pd.DataFrame:
    "One row per run of a results folder: agent, MDP, seed, loop seconds, last step, cut by the budget."
    rows = []
    for csv in sorted(Path(folder).rglob('seed*_logs.csv')):
        label, seed = csv.parent.name, int(csv.name[4:].split('_')[0])
        mdp, agent = label.split('____') if '____' in label else (label, '?')
        last = pd.read_csv(csv, usecols=['steps', 'steps_per_second']).iloc[-1]
        secs = float(last.steps / last.steps_per_second) if last.steps_per_second > 0 else float('nan')
        rows.append(dict(agent=agent.split('-', 1)[-1], mdp=mdp, seed=seed, loop_s=secs, last_step=int(last.steps),
                         cut=(csv.parent / f'seed{seed}_time_exceeded.txt').exists()))
    return pd.DataFrame(rows, columns=['agent', 'mdp', 'seed', 'loop_s', 'last_step', 'cut'])

def report(name, df, wall, cpu, rss, seeds, steps):
    print(f"\n== {name}: {len(df)} runs, wall {wall:,.1f} s, CPU {cpu:,.1f} s (job + workers), main process peak RSS {rss:,.0f} MiB; "
          f"load average now {os.getloadavg()[0]:.1f}")
    if df.empty: return
    g = df.groupby('agent')
    t = pd.DataFrame({'runs': g.size(), 'sum of loop s': g.loop_s.sum().round(1), 'slowest run s': g.loop_s.max().round(1),
                      'median run s': g.loop_s.median().round(2), 'cut by budget': g.cut.sum()})
    print(t.to_string())
    slow = df.sort_values('loop_s', ascending=False).head(5)
    print("slowest runs: " + '; '.join(f"{r.agent} on {r.mdp} seed {r.seed} {r.loop_s:,.1f} s" for r in slow.itertuples()))
    short = df[df.last_step != df.last_step.max()]
    if df.cut.any() or len(short): print(f"!! {int(df.cut.sum())} run(s) cut by the time budget, {len(short)} shorter than the others")
    else: print("no run cut by the time budget")

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--settings', nargs='+', default=list(SETTINGS), choices=SETTINGS)
    ap.add_argument('--agents', nargs='+', help='agent classes (default: every built-in agent of the setting)')
    ap.add_argument('--seeds', type=int, help=f'seeds per run (default: the benchmark\'s, {FULL_SEEDS})')
    ap.add_argument('--steps', type=int, help=f'steps per run (default: the benchmark\'s, {FULL_STEPS:,})')
    ap.add_argument('--cores', type=int, default=2)
    ap.add_argument('--keep', metavar='FOLDER', help='results root to keep (default: a temporary folder, removed)')
    a = ap.parse_args()
    root = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix='full_default_'))
    print(f"settings {', '.join(a.settings)}; agents {'every built-in one' if not a.agents else ', '.join(a.agents)}; "
          f"seeds {a.seeds or FULL_SEEDS}, steps {a.steps or FULL_STEPS:,}; {a.cores} cores; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}; results in {root}", flush=True)
    totals = []
    try:
        for name in a.settings:
            res = run_setting(name, root, a.agents, a.seeds, a.steps, a.cores)
            if res is None: print(f"{name}: none of the agents applies, skipped"); continue
            wall, cpu, rss, rc, out = res
            if rc != 0: print(f"!! {name}: `colosseum_nb run` exited with {rc}:\n{out[-3000:]}")
            df = runs_of(root / f'benchmark_{name}')
            report(name, df, wall, cpu, rss, a.seeds, a.steps)
            totals.append((name, wall, cpu, rss, df))
    finally:
        if not a.keep: shutil.rmtree(root, ignore_errors=True)
    scale = (FULL_SEEDS / (a.seeds or FULL_SEEDS)) * (FULL_STEPS / (a.steps or FULL_STEPS))
    print(f"\n{'setting':<26}{'wall s':>10}{'CPU s':>10}{'peak RSS MiB':>14}{'runs':>7}{'sum loop s':>12}{'cut':>5}")
    for name, wall, cpu, rss, df in totals:
        print(f"{name:<26}{wall:>10,.1f}{cpu:>10,.1f}{rss:>14,.0f}{len(df):>7}{df.loop_s.sum():>12,.1f}{int(df.cut.sum()):>5}")
    wall = sum(t[1] for t in totals); loop = sum(t[4].loop_s.sum() for t in totals)
    print(f"total: wall {wall:,.1f} s ({wall / 60:.1f} min), runs' loop seconds {loop:,.1f}")
    if a.steps and a.steps != FULL_STEPS:
        print("no projection from shortened runs: the first steps cost the replanning agents most (every first visit of a pair ends "
              "an episode), so seconds per step of a short run are not those of a 500,000-step run; sample with --seeds 1 instead")
    elif scale != 1:
        cpu = sum(t[2] for t in totals)
        print(f"projection to {FULL_SEEDS} seeds (x{scale:g}, divided by {a.cores} cores, perfect packing): from the job's CPU-seconds "
              f"{cpu * scale / a.cores / 60:,.1f} min (compilation counted each time: an upper bound), from the runs' loop seconds "
              f"{loop * scale / a.cores / 60:,.1f} min, for these settings and agents")
    return 0

if __name__ == '__main__': sys.exit(main())
