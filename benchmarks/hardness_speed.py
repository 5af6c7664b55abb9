"""Speed of the hardness measures next to Colosseum's figures.

* the diameter of `MiniGridRoomsContinuous(room_size=5, n_rooms=9, p_rand=0.3, p_lazy=0.4, seed=0)`
  (948 states; Colosseum 1.2: 51 s, 98.766), in both modes, compilation timed separately;
* `DeepSeaContinuous(size=300)` (45,150 states): build, optimal policy and value norm, with the
  peak memory of the process (Colosseum needs a dense 45,150 x 2 x 45,150 float32 matrix, 16 GB,
  before it can start).

    python benchmarks/hardness_speed.py [--warm]

By default numba compiles into an empty cache folder, so the "compile" row is the compilation time;
--warm keeps the user's numba cache (the row then shows the time to load the kernels).
The hardness cache (`COLOSSEUM_NB_CACHE`) is switched off so that every measure is computed.
"""
import os, resource, sys, tempfile, time, tracemalloc

os.environ.pop('COLOSSEUM_NB_CACHE', None)
WARM = '--warm' in sys.argv
_tmp = None if WARM else tempfile.TemporaryDirectory(prefix='numba_cache_')
if _tmp is not None: os.environ['NUMBA_CACHE_DIR'] = _tmp.name  # before numba is imported

import numpy as np
import pandas as pd


def timed(f, *args, **kw):
    t = time.perf_counter(); v = f(*args, **kw)
    return v, time.perf_counter() - t


def peak_rss_mb():
    "Peak resident memory of this process so far (Linux reports KiB)."
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    rows = []
    t0 = time.perf_counter()
    from colosseum_nb import hardness
    from colosseum_nb.mdp.minigrid_rooms import MiniGridRoomsContinuous
    from colosseum_nb.mdp.deep_sea import DeepSeaContinuous
    from colosseum_nb.mdp.river_swim import RiverSwimContinuous
    import colosseum_nb.mdp.values  # noqa: F401  (patches the optimal policy onto the MDPs)
    rows.append(dict(measure='import', MDP='', ours_s=time.perf_counter() - t0, ours_value='', reference_s='', reference_value=''))

    # compilation (or loading from numba's cache): every kernel on a tiny MDP, both modes
    tiny = RiverSwimContinuous(seed=0, size=4, p_lazy=0.1, p_rand=0.1)
    _, t = timed(lambda: (hardness.measures_of_hardness(tiny, False), hardness.measures_of_hardness(tiny, True)))
    rows.append(dict(measure='load kernels (numba cache)' if WARM else 'compile every kernel (both modes)', MDP=repr(tiny), ours_s=t, ours_value='', reference_s='', reference_value=''))

    def rooms(): return MiniGridRoomsContinuous(room_size=5, n_rooms=9, p_rand=0.3, p_lazy=0.4, seed=0)
    for compat, name, n in ((False, 'diameter (exact, tol 1e-6), best of 3', 3), (True, 'diameter (reference-compatible)', 1)):
        runs = [timed(hardness.diameter, rooms(), compat) for _ in range(n)]
        d, t = runs[0][0], min(t for _, t in runs)
        rows.append(dict(measure=name, MDP=repr(rooms()), ours_s=t, ours_value=f'{d:.6f}', reference_s='51', reference_value='98.766'))

    def deep_sea_rows():
        sea, t_build = timed(DeepSeaContinuous, seed=0, size=300)
        pi, t_pi = timed(lambda: sea.get_optimal_policy(False))
        out = [dict(measure='build', MDP=repr(sea), ours_s=t_build, ours_value=f'S={sea.n_states}', reference_s='', reference_value=''),
               dict(measure='optimal policy (exact)', MDP=repr(sea), ours_s=t_pi, ours_value=f'shape {tuple(np.shape(pi))}', reference_s='', reference_value='')]
        for compat, name in ((False, 'value norm (exact)'), (True, 'value norm (reference-compatible)')):
            v, t = timed(hardness.value_norm, sea, compat)
            out.append(dict(measure=name, MDP=repr(sea), ours_s=t, ours_value=f'{v:.6g}', reference_s='', reference_value=''))
        out.append(dict(measure='  build + policy + both value norms', MDP=repr(sea), ours_s=sum(r['ours_s'] for r in out), ours_value='',
                        reference_s='', reference_value='(needs a 16 GB dense T)'))
        return out

    rows += deep_sea_rows()
    rss = peak_rss_mb()
    tracemalloc.start()            # a second run, for memory only (tracing slows Python down)
    deep_sea_rows()
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    rows.append(dict(measure='peak memory of the DeepSea rows (tracemalloc: numpy + Python)', MDP='', ours_s='',
                     ours_value=f'{traced:.0f} MB', reference_s='', reference_value='dense float32 T alone: 16,300 MB'))
    rows.append(dict(measure='peak memory of the whole process after them (RSS, incl. numba/LLVM)', MDP='', ours_s='',
                     ours_value=f'{rss:.0f} MB', reference_s='', reference_value=''))

    df = pd.DataFrame(rows)
    df['ours_s'] = [f'{s:.3f}' if isinstance(s, float) else s for s in df.ours_s]
    print(f"hardness speed, {os.cpu_count()} CPUs, NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'default')}")
    with pd.option_context('display.width', 250, 'display.max_colwidth', 80):
        print(df.to_string(index=False, justify='left'))


if __name__ == '__main__': main()
