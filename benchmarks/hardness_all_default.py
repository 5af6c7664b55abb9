"""Hardness of every MDP of Colosseum's four default benchmarks, timed.

Builds the 80 MDPs of `continuous_ergodic`, `continuous_communicating`, `episodic_ergodic` and
`episodic_communicating` (seed 0) and computes the communication class, the diameter, the
environmental value norm and the sum of reciprocal sub-optimality gaps of each. The run uses an
empty numba cache folder, so the grand total includes compiling every kernel (target: under 60 s).

The same 80 MDPs are then built and measured a second time in the same process (compute only).
Then it starts itself again in fresh processes and times the first result there (import, build
`RiverSwimContinuous(size=8)`, its three measures and its class): once with the numba cache the
first run filled (target: under 5 s) and once with an empty cache, for comparison.

    python benchmarks/hardness_all_default.py [--reference-compatible] [--warm] [--show]

--warm keeps the user's own numba cache (no compilation measured), --show prints the 80-row tables.
The hardness cache (`COLOSSEUM_NB_CACHE`) is switched off so that every measure is computed.
"""
import argparse, json, os, subprocess, sys, tempfile, time

T_START = time.perf_counter()
BENCHMARKS = ['continuous_ergodic', 'continuous_communicating', 'episodic_ergodic', 'episodic_communicating']
TARGET_ALL, TARGET_FIRST = 60.0, 5.0


def first_result(reference_compatible):
    "Child process: time to the first hardness result of a small MDP, with a breakdown."
    t0 = time.perf_counter()
    from colosseum_nb.mdp.river_swim import RiverSwimContinuous
    from colosseum_nb.hardness import measures_of_hardness
    t1 = time.perf_counter()
    mdp = RiverSwimContinuous(seed=0, size=8, p_lazy=0.1, p_rand=0.2, randomize_actions=False)
    m = measures_of_hardness(mdp, reference_compatible=reference_compatible or None)
    cls = getattr(mdp.communication_class, 'name', str(mdp.communication_class))
    t2 = time.perf_counter()
    print(json.dumps(dict(imports=t1 - t0, compute=t2 - t1, in_process=t2 - T_START, diameter=float(m['diameter']), cls=cls)))


def _stamp():
    "Modification times of the package's modules (numba's cache is keyed on them)."
    import colosseum_nb  # noqa: F401  (light: the package __init__ only)
    root = os.path.dirname(colosseum_nb.__file__)
    return sorted((f, os.stat(os.path.join(d, f)).st_mtime_ns) for d, _, fs in os.walk(root) for f in fs if f.endswith('.py'))


def fresh_process(cache_dir, reference_compatible):
    "Wall time of a fresh child process that computes a first result, and its own breakdown."
    env = dict(os.environ)
    if cache_dir: env['NUMBA_CACHE_DIR'] = cache_dir  # else the default cache next to the sources
    cmd = [sys.executable, os.path.abspath(__file__), '--child'] + (['--reference-compatible'] if reference_compatible else [])
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0: sys.exit(f"child process failed:\n{r.stderr}")
    return wall, json.loads(r.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--reference-compatible', action='store_true', help="Colosseum's numbers instead of the defined measures")
    p.add_argument('--warm', action='store_true', help="use the existing numba cache (compilation not measured)")
    p.add_argument('--show', action='store_true', help='print the hardness tables')
    p.add_argument('--child', action='store_true', help=argparse.SUPPRESS)
    args = p.parse_args()
    os.environ.pop('COLOSSEUM_NB_CACHE', None)
    if args.child: return first_result(args.reference_compatible)

    tmp = tempfile.TemporaryDirectory(prefix='numba_cache_')
    if not args.warm: os.environ['NUMBA_CACHE_DIR'] = tmp.name  # before numba is imported: a cold cache
    cache_dir = os.environ.get('NUMBA_CACHE_DIR')
    stamp = _stamp()
    t0 = time.perf_counter()
    import pandas as pd
    from colosseum_nb.benchmark.benchmark import hardness_table
    import colosseum_nb.hardness  # noqa: F401  (imported here so that its cost is counted once)
    t_import = time.perf_counter() - t0
    rc = True if args.reference_compatible else None

    rows, tables = [], []
    for name in BENCHMARKS:
        t = time.perf_counter()
        df = hardness_table(name, seed=0, reference_compatible=rc)
        wall = time.perf_counter() - t
        tables.append((name, df))
        rows.append(dict(measure=f'  {name} ({len(df)} MDPs, largest S={df.n_states.max()})', seconds=wall, target=''))
    total = time.perf_counter() - t0
    n = sum(len(df) for _, df in tables)
    t = time.perf_counter()
    for name in BENCHMARKS: hardness_table(name, seed=0, reference_compatible=rc)  # fresh MDPs, kernels compiled
    again = time.perf_counter() - t

    warm_wall, warm = fresh_process(cache_dir, args.reference_compatible)
    with tempfile.TemporaryDirectory(prefix='numba_cold_') as cold_dir: cold_wall, cold = fresh_process(cold_dir, args.reference_compatible)

    if args.show:
        with pd.option_context('display.width', 200, 'display.max_rows', 200):
            for name, df in tables: print(f'\n{name}\n{df.to_string(index=False)}')
        print()
    comp = 'with compilation (empty numba cache)' if not args.warm else 'numba cache as found (--warm)'
    out = [dict(measure='import colosseum_nb (benchmark, hardness)', seconds=t_import, target='')] + rows + [
        dict(measure=f'all {n} MDPs: build + class + 3 measures, {comp}', seconds=total, target=f'< {TARGET_ALL:.0f} s'),
        dict(measure='  of which the slowest single MDP', seconds=max(df.seconds.max() for _, df in tables), target=''),
        dict(measure=f'all {n} MDPs again in the same process (kernels compiled)', seconds=again, target=''),
        dict(measure='fresh process, warm numba cache: first result (RiverSwim S=8)', seconds=warm_wall, target=f'< {TARGET_FIRST:.0f} s'),
        dict(measure='  of which imports / compute', seconds=f"{warm['imports']:.2f} / {warm['compute']:.2f}", target=''),
        dict(measure='fresh process, empty numba cache: first result (for comparison)', seconds=cold_wall, target=''),
        dict(measure='  of which imports / compute', seconds=f"{cold['imports']:.2f} / {cold['compute']:.2f}", target='')]
    ok_all, ok_first = total < TARGET_ALL, warm_wall < TARGET_FIRST
    met = iter(['yes' if ok_all else 'NO', 'yes' if ok_first else 'NO'])
    for r in out:
        r['seconds'] = f"{r['seconds']:.2f}" if isinstance(r['seconds'], float) else r['seconds']
        r['met'] = next(met) if r['target'] else ''
    mode = 'reference-compatible' if args.reference_compatible else 'defined measures'
    import colosseum_nb
    print(f"hardness of the default benchmarks, seed 0, {mode}; NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'default')}, "
          f"{os.cpu_count()} CPUs; colosseum_nb {colosseum_nb.__version__} from {os.path.dirname(colosseum_nb.__file__)}")
    cols = ['measure', 'seconds', 'target', 'met']
    w = {c: max(len(c), *(len(str(r[c])) for r in out)) for c in cols}
    print('  '.join(c.ljust(w[c]) if c == 'measure' else c.rjust(w[c]) for c in cols))
    for r in out: print('  '.join(str(r[c]).ljust(w[c]) if c == 'measure' else str(r[c]).rjust(w[c]) for c in cols))
    if _stamp() != stamp: print("note: package files were rewritten during the run (nbdev_export?), which invalidates numba's cache; rerun for a clean warm-cache figure")
    tmp.cleanup()


if __name__ == '__main__': main()
