"""Peak memory and time of the analysis of a large results folder, and of the main job's summary of it.

Builds synthetic results folders in Colosseum's layout: Colosseum's four default benchmarks (their `mdp_configs/`,
20 MDP instances each), `--agents` agent configurations (scopes prms_0..prms_<k-1> of Q-learning, the setting's class)
and `--seeds` seeds each, every run a `seed<k>_logs.csv` with the real header (the 21 columns the loop writes, in
its order) and `--steps / --log-every` rows of 5-decimal numbers, cumulative indicators growing with the steps like
a real log's. The defaults are the issue's user: 10 agents x 80 MDPs x 20 seeds = 16,000 runs of 500,000 steps logged
every 100 steps (5,000 rows, 1.1 MB per file: 18 GB of text). To keep the disk use small, the files are hard links
to `--variants` distinct logs (the reader reads every file's bytes all the same; the page cache holds the variants).

Then, in a fresh Python process (so the peak is the analysis's own), it runs what `colosseum_nb analyse` runs, one
benchmark at a time (`analysis.analyse`'s steps, timed one by one: load, tables and curves, hardness space, statistics)
and what `colosseum_nb run` prints after the runs (`cli.summary_table` of each benchmark), and prints the wall time of
each step and the process's peak resident memory (`ru_maxrss`) after each. Target: peak <= 2 GB at 16,000 runs.

With `--compare-tree DIR` it also runs the same child with the package of another checkout (e.g. the tree before
this change) first, for the summary and loading only (the old loader needs several GB per 1,600 runs: use a small
scale, e.g. `--benchmarks continuous_communicating --agents 4`, the CC main job's 1,600 runs).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_memory.py [--agents 10] [--seeds 20] [--steps 500000]
        [--log-every 100] [--benchmarks continuous_communicating ...] [--folder /tmp/x] [--keep] [--reps 2000]
"""
import os, sys, time, shutil, tempfile, subprocess, argparse, json
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
from pathlib import Path
import numpy as np

BENCHMARKS = ['continuous_ergodic', 'continuous_communicating', 'episodic_ergodic', 'episodic_communicating']


def _variant(rng, steps):
    "The text of one synthetic log: the real header, cumulative columns growing with the steps, 5 decimals."
    from colosseum_nb.experiment.agent_mdp_interaction import LOG_COLUMNS
    t1, cols = steps + 1.0, {}
    rate = rng.uniform(.05, .9)
    for c in LOG_COLUMNS:
        r = rng.uniform(.01, 1.0)
        cols[c] = r * t1 if ('cumulative' in c) else np.full(len(steps), r * 1e5)
    cols['normalized_cumulative_regret'] = rate * t1 ** rng.uniform(.85, 1.0)
    cols['behaviour_normalized_cumulative_regret'] = cols['normalized_cumulative_regret'] * rng.uniform(1, 1.3)
    cols['worst_normalized_cumulative_regret'], cols['random_normalized_cumulative_regret'] = t1, .8 * t1
    vals = np.column_stack([np.round(cols[c], 5) for c in LOG_COLUMNS])
    fmt = ['%d' if c == 'steps' else '%.5f' for c in LOG_COLUMNS]
    vals[:, LOG_COLUMNS.index('steps')] = steps
    import io
    buf = io.StringIO(); np.savetxt(buf, vals, fmt=fmt, delimiter=',', header=','.join(LOG_COLUMNS), comments='')
    return buf.getvalue()


def make_folders(root, benchmarks, n_agents, n_seeds, n_steps, log_every, n_variants):
    "Write the benchmark folders; return (number of runs, bytes of text the reader reads, bytes on disk)."
    from colosseum_nb.benchmark.benchmark import ColosseumDefaultBenchmark, parse_mdp_gin
    rng = np.random.default_rng(0)
    steps = np.r_[np.arange(log_every, n_steps, log_every), n_steps - 1].astype(float)
    store = Path(root) / '_variants'; store.mkdir(parents=True, exist_ok=True)
    variants = []
    for i in range(n_variants):
        p = store / f'v{i}.csv'; p.write_text(_variant(rng, steps)); variants.append(p)
    n, text = 0, 0
    for b in benchmarks:
        db = ColosseumDefaultBenchmark.from_name(b)
        bench = Path(root) / 'results' / db.folder_name
        shutil.copytree(db.mdp_configs_folder, bench / 'mdp_configs', dirs_exist_ok=True)
        mdps = [c.name for f in sorted(db.mdp_configs_folder.glob('*.gin')) for c in parse_mdp_gin(f)]
        agent = 'QLearningEpisodic' if db.is_episodic else 'QLearningContinuous'
        for m in mdps:
            for a in range(n_agents):
                d = bench / 'logs' / f'{m}____prms_{a}-{agent}'; d.mkdir(parents=True, exist_ok=True)
                for s in range(n_seeds):
                    v = variants[int(rng.integers(n_variants))]
                    os.link(v, d / f'seed{s}_logs.csv'); n += 1; text += v.stat().st_size
    return n, text, sum(v.stat().st_size for v in variants)


_CHILD = r"""
import json, resource, sys, time, warnings
from pathlib import Path
def peak(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9   # GB (Linux reports KiB)
root, out, reps, old = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == 'old'
t = {}
t0 = time.perf_counter()
import colosseum_nb.cli as cli
import colosseum_nb.analysis as an
t['import_s'], t['import_peak_gib'] = time.perf_counter() - t0, peak()
benches = an.benchmark_folders(root)
t0 = time.perf_counter()
for b in benches: cli.summary_table(b)              # what `colosseum_nb run` prints after the runs
t['summary_s'], t['summary_peak_gib'] = time.perf_counter() - t0, peak()
if old:   # the previous analysis loaded the whole tidy table of every benchmark
    t0 = time.perf_counter(); df = an.load_results(root, hardness=False)
    t['load_s'], t['load_peak_gib'], t['rows'] = time.perf_counter() - t0, peak(), len(df)
    print(json.dumps(t)); sys.exit()
from colosseum_nb.analysis import _load, _columns, _tables, _statistics, _safe, DEFAULT_INDICATORS, plot_hardness_space, _save, agent_colours
for k in ('load', 'tables_and_curves', 'hardness_space', 'statistics'): t[k + '_s'] = 0.0
written, rows = [], 0
warnings.simplefilter('ignore')
for bench in benches:   # the steps of analysis.analyse, timed one by one
    t0 = time.perf_counter(); df = _load(root, bench, True, _columns(None), 200); t['load_s'] += time.perf_counter() - t0; rows += len(df)
    t['load_peak_gib'] = peak(); d = out / _safe(df.benchmark.iloc[0]); d.mkdir(parents=True, exist_ok=True)
    colours = agent_colours(df.agent)
    t0 = time.perf_counter(); _tables(df, d, [i for i in DEFAULT_INDICATORS if i in df], written, colours); t['tables_and_curves_s'] += time.perf_counter() - t0
    t0 = time.perf_counter(); _save(plot_hardness_space(df), d, 'hardness_space', written); t['hardness_space_s'] += time.perf_counter() - t0
    t0 = time.perf_counter(); _statistics(df, d, reps, 0, written, colours); t['statistics_s'] += time.perf_counter() - t0
    del df
t['rows'], t['files_written'], t['analysis_peak_gib'] = rows, len(written), peak()
print(json.dumps(t))
"""


def child(root, out, reps, tree=None):
    "Run the measuring child; its figures as a dict."
    env = {**os.environ, 'PYTHONPATH': str(tree or Path(__file__).resolve().parents[1])}
    if tree: env.update(NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix='numba_cache_'), PYTHONDONTWRITEBYTECODE='1')   # leave the other tree's files alone
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, '-c', _CHILD, str(root), str(out), str(reps), 'old' if tree else 'new'], capture_output=True, text=True, env=env)
    if r.returncode: raise RuntimeError(r.stderr[-3000:])
    return dict(json.loads(r.stdout.strip().splitlines()[-1]), wall_s=time.perf_counter() - t0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--agents', type=int, default=10); p.add_argument('--seeds', type=int, default=20)
    p.add_argument('--steps', type=int, default=500_000); p.add_argument('--log-every', type=int, default=100)
    p.add_argument('--benchmarks', nargs='+', default=BENCHMARKS, choices=BENCHMARKS)
    p.add_argument('--variants', type=int, default=24); p.add_argument('--reps', type=int, default=2000)
    p.add_argument('--folder'); p.add_argument('--keep', action='store_true'); p.add_argument('--compare-tree')
    args = p.parse_args()
    root = Path(args.folder or tempfile.mkdtemp(prefix='analysis_memory_'))
    try:
        t0 = time.perf_counter()
        n, text, disk = make_folders(root, args.benchmarks, args.agents, args.seeds, args.steps, args.log_every, args.variants)
        rows = len(range(args.log_every, args.steps, args.log_every)) + 1
        print(f"wrote {n:,} runs ({len(args.benchmarks)} benchmarks x 20 MDPs x {args.agents} agents x {args.seeds} seeds), {rows:,} rows each: "
              f"{text / 1e9:.2f} GB of CSV text to read ({disk / 1e6:.0f} MB on disk: hard links to {args.variants} logs) in {time.perf_counter() - t0:.0f} s")
        if args.compare_tree:
            o = child(root / 'results', root / 'analysis_old', args.reps, args.compare_tree)
            print(f"before ({args.compare_tree}): run summary {o['summary_s']:.1f} s, peak {o['summary_peak_gib']:.2f} GB; "
                  f"load_results (whole tidy table, {o['rows']:,} rows) {o['load_s']:.1f} s, peak {o['load_peak_gib']:.2f} GB")
        r = child(root / 'results', root / 'analysis', args.reps)
        print(f"run summary (what `colosseum_nb run` prints after its runs): {r['summary_s']:.1f} s, peak RSS {r['summary_peak_gib']:.2f} GB")
        print(f"analysis ({r['rows']:,} rows kept, {r['files_written']} files written): load {r['load_s']:.1f} s, tables and curves "
              f"{r['tables_and_curves_s']:.1f} s, hardness space {r['hardness_space_s']:.1f} s, statistics {r['statistics_s']:.1f} s; "
              f"process wall {r['wall_s']:.1f} s (imports {r['import_s']:.1f} s)")
        print(f"peak RSS of the process: {r['analysis_peak_gib']:.2f} GB (after the last load {r['load_peak_gib']:.2f} GB; "
              f"imports alone {r['import_peak_gib']:.2f} GB); target <= 2 GB at 16,000 runs")
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (wall times of a shared machine)")
    finally:
        if not args.keep: shutil.rmtree(root, ignore_errors=True)


if __name__ == '__main__': main()
