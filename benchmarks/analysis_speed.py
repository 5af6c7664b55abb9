"""Speed of the analysis layer: loading a results folder into the tidy table, and the aggregate statistics.

1. Loading: a benchmark folder with 10,010 result CSVs of 500 log rows each (the 18 columns of a real log, values
   with 5 decimals like a real log's; 7 MDP instances of the episodic quick test x 10 agent configurations x 143 seeds,
   so seeds have up to three digits), about 0.8 GB of text, loaded with `load_results` in a fresh Python process
   (the compiled parser comes from numba's on-disk cache after the first run). Printed: the load time inside the
   process, and the wall time of the whole process (imports included); without and with the MDPs' hardness
   measures (7 MDPs, computed once per process). Target: under 10 s.
2. `aggregate_metrics` on 5 agents x 80 tasks x 20 runs with 2,000 bootstrap samples (IQM, median, mean and
   optimality gap with 95% intervals): median of 3 calls. Target: under 2 s.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_speed.py [--folder DIR] [--keep]
"""
import os, sys, time, shutil, tempfile, subprocess, statistics, argparse
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
from pathlib import Path
import numpy as np

N_ROWS, N_AGENTS, N_SEEDS = 500, 10, 143
MDPS = ['DeepSeaEpisodic', 'FrozenLakeEpisodic', 'MiniGridEmptyEpisodic', 'MiniGridRoomsEpisodic', 'RiverSwimEpisodic',
        'SimpleGridEpisodic', 'TaxiEpisodic']

def _texts(n_variants=40):
    "Log texts with the real header and realistic numbers."
    from colosseum_nb.experiment.agent_mdp_interaction import LOG_COLUMNS
    rng, steps = np.random.default_rng(0), np.r_[np.arange(1, N_ROWS) * 100, N_ROWS * 100 - 1]
    out = []
    for _ in range(n_variants):
        vals = np.round(rng.random((N_ROWS, len(LOG_COLUMNS))) * steps[:, None] * rng.random(len(LOG_COLUMNS)) * 3, 5)
        lines = [','.join(LOG_COLUMNS)]
        i_steps = LOG_COLUMNS.index('steps')
        for r in range(N_ROWS):
            row = [repr(float(v)) for v in vals[r]]; row[i_steps] = str(int(steps[r]))
            lines.append(','.join(row))
        out.append('\n'.join(lines) + '\n')
    return out

def make_folder(root):
    "Write the benchmark folder of 10,010 logs; return it."
    from colosseum_nb.benchmark.benchmark import ColosseumDefaultBenchmark
    bench = Path(root) / 'benchmark_episodic_quick_test'
    shutil.copytree(ColosseumDefaultBenchmark.EPISODIC_QUICK_TEST.mdp_configs_folder, bench / 'mdp_configs', dirs_exist_ok=True)
    texts, k = _texts(), 0
    for m in MDPS:
        for a in range(N_AGENTS):
            d = bench / 'logs' / f'prms_0-{m}____prms_{a}-QLearningEpisodic'; d.mkdir(parents=True, exist_ok=True)
            for s in range(N_SEEDS):
                (d / f'seed{s}_logs.csv').write_text(texts[k % len(texts)]); k += 1
    return bench, k

_CHILD = """
import time, sys
t0 = time.perf_counter()
from colosseum_nb.analysis.results import load_results
t1, c1 = time.perf_counter(), time.process_time()
df = load_results(sys.argv[1], hardness=sys.argv[2] == '1')
t2, c2 = time.perf_counter(), time.process_time()
print(f'{t2 - t1:.2f} {t2 - t0:.2f} {len(df)} {df.seed.max()} {c2 - c1:.2f}')
"""

def time_load(folder, hardness):
    "(load seconds, process wall seconds, rows, max seed, load CPU seconds) of a fresh process."
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, '-c', _CHILD, str(folder), '1' if hardness else '0'], capture_output=True, text=True,
                         env={**os.environ, 'PYTHONPATH': os.environ.get('PYTHONPATH', str(Path(__file__).resolve().parents[1]))})
    wall = time.perf_counter() - t0
    if out.returncode: raise RuntimeError(out.stderr)
    load, inner, rows, seed, cpu = out.stdout.split()
    return float(load), wall, int(rows), int(seed), float(cpu)

def time_metrics(repeats=3):
    from colosseum_nb.analysis.statistics import aggregate_metrics
    rng = np.random.default_rng(0)
    scores = {f'agent{i}': rng.beta(2 + i, 2, (20, 80)) for i in range(5)}
    aggregate_metrics(scores, reps=50)
    ts, cs = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time(); aggregate_metrics(scores, reps=2000)
        ts.append(time.perf_counter() - t0); cs.append(time.process_time() - c0)
    return statistics.median(ts), statistics.median(cs)

def main():
    p = argparse.ArgumentParser(); p.add_argument('--folder'); p.add_argument('--keep', action='store_true'); args = p.parse_args()
    root = Path(args.folder or tempfile.mkdtemp(prefix='analysis_speed_'))
    try:
        t0 = time.perf_counter(); bench, n = make_folder(root)
        size = sum(f.stat().st_size for f in (bench / 'logs').rglob('*.csv'))
        print(f"wrote {n:,} CSVs x {N_ROWS} rows ({size / 1e9:.2f} GB) in {time.perf_counter() - t0:.0f} s")
        time_load(bench, False)  # compiles the parser into numba's cache once
        for h in (False, True):
            load, wall, rows, seed, cpu = time_load(bench, h)
            print(f"load_results(hardness={h}): {load:.2f} s in the process ({cpu:.2f} s CPU, all threads), {wall:.2f} s fresh process wall time; "
                  f"{rows:,} rows, largest seed {seed} (target < 10 s)")
        t, c = time_metrics()
        print(f"aggregate_metrics 5 agents x 80 tasks x 20 runs, 2,000 reps: {t:.2f} s ({c:.2f} s CPU) (target < 2 s)")
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (timings are wall times of a shared machine)")
    finally:
        if not args.keep: shutil.rmtree(root, ignore_errors=True)

if __name__ == '__main__': main()
