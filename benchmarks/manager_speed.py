"""Parallel fits of `ExperimentManager`, and the independence of its results from `n_fit`, `max_workers` and the parallelization.

1. Speed: `fit` of 4 QLearningEpisodic agents (cached best hyperparameters), 1,000,000 steps each (indicators logged
   every 10,000 steps, the manager's default), on the episodic quick-test DeepSea (prms_0 of
   `benchmark_episodic_quick_test/mdp_configs/DeepSeaEpisodic.gin`, seed 0), with 2 workers. Reference: one agent's
   in-process run of the same length (`MDPLoop.run`, after a compiling run) x 4 / 2, i.e. perfect use of 2 workers.
   Target: wall time / reference <= 1.3. Both parallelizations are timed: 'process' (fork) and 'thread'.
2. Seeds: same seed, different `n_fit` / `max_workers` / parallelization (and a second, continuing `fit` call): the
   writer data of the fits they have in common must be identical (every indicator but the wall-clock `steps_per_second`).

   The time each fit spent inside its loop, and the CPU time used per second of wall time (a measure of parallelism that
   the machine's load does not inflate), are printed too: with 'thread' the fits run in parallel because the loop kernel
   releases the GIL (it is compiled with nogil=True; a CPU / wall near 1.0 would mean the threads take turns), and on a
   busy machine the fits of both slow down when they compete for cores; wall time minus the longest
   worker's loop time is the manager's own overhead (starting workers, building the MDP and the agents, shipping results).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/manager_speed.py [--steps N] [--repeats N] [--skip-threads]
"""
import os, sys, time, argparse, tempfile
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
import numpy as np
from colosseum_nb.manager import ExperimentManager
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.benchmark.benchmark import BENCHMARK_DATA, parse_mdp_gin
from colosseum_nb.mdp.deep_sea import DeepSeaEpisodic
from colosseum_nb.agent.agents.episodic import QLearningEpisodic

TARGET = 1.3

def quick_test_deep_sea_kwargs():
    "prms_0 of the episodic quick test's DeepSeaEpisodic.gin, seed 0."
    cfg = next(c for c in parse_mdp_gin(BENCHMARK_DATA / 'benchmark_episodic_quick_test' / 'mdp_configs' / 'DeepSeaEpisodic.gin') if c.scope == 'prms_0')
    return dict(seed=0, **cfg.kwargs)

def one_run(kw, T, log_every):
    "Seconds of one in-process run of T steps (after a compiling run)."
    mdp = DeepSeaEpisodic(**kw); p = QLearningEpisodic.get_default_parameters()
    MDPLoop(mdp, QLearningEpisodic.get_agent_instance_from_parameters(0, 1000, make_mdp_spec(mdp), p)).run(1000, 100)
    agent = QLearningEpisodic.get_agent_instance_from_parameters(1, T, make_mdp_spec(mdp), p)
    t = time.perf_counter(); MDPLoop(mdp, agent, seed=1).run(T, log_every); return time.perf_counter() - t

def manager(kw, T, out, **k):
    return ExperimentManager(QLearningEpisodic, (DeepSeaEpisodic, kw), fit_budget=T, output_dir=out, **{'seed': 123, **k})

def loop_seconds(m):
    "Seconds each fit spent inside its loop (from the last log row: steps / steps_per_second)."
    last = m.get_writer_data().groupby('fit').last()
    return ((last.steps + 1) / last.steps_per_second).to_numpy()

def cpu_seconds():
    "CPU seconds of this process (all threads) and of its finished worker processes."
    t = os.times(); return t.user + t.system + t.children_user + t.children_system

def speed(kw, T, out, parallelizations, repeats):
    t1 = min(one_run(kw, T, max(1, T // 100)) for _ in range(repeats)); ref = t1 * 4 / 2
    print(f"one in-process run of {T:,} steps: {t1:.2f} s (best of {repeats}) -> reference 4 fits / 2 workers = {ref:.2f} s")
    for par in parallelizations:
        best = None
        for _ in range(repeats):
            m = manager(kw, T, out, n_fit=4, max_workers=2, parallelization=par)
            c0, t = cpu_seconds(), time.perf_counter(); m.fit(); wall = time.perf_counter() - t; cpu = cpu_seconds() - c0
            if best is None or wall < best[0]: best = (wall, loop_seconds(m), cpu)
        wall, inner, cpu = best
        print(f"fit, 4 x {T:,} steps, 2 workers, {par:7s}: {wall:6.2f} s   ratio {wall / ref:.2f}   (target <= {TARGET}; best of {repeats})"
              f"   time inside the fits' loops: {inner.sum():.2f} s in all, {inner.mean():.2f} s per fit;"
              f"   CPU / wall: {cpu / wall:.2f} (2.00 = both workers busy all the time)")

def writer(m):
    df = m.get_writer_data(); return df[[c for c in df.columns if c != 'steps_per_second']]

def seeds_check(kw, T, out):
    "Writer data of the common fits under different n_fit / max_workers / parallelization, after two fit calls."
    setups = [dict(n_fit=2, max_workers=1, parallelization='thread'), dict(n_fit=4, max_workers=2, parallelization='thread'),
              dict(n_fit=3, max_workers=2, parallelization='process'), dict(n_fit=2, max_workers=1, parallelization='process')]
    data = []
    for s in setups:
        m = manager(kw, T, out, **s); m.fit(); m.fit(T // 2); data.append(writer(m))
    ref = data[0]
    for s, d in zip(setups, data):
        same = d[d.fit < 2].reset_index(drop=True).equals(ref)
        print(f"seed 123, {s}: fits 0-1 identical to n_fit=2/max_workers=1/thread: {same}  "
              f"(final normalized regret of fit 0: {d[d.fit == 0].normalized_cumulative_regret.iloc[-1]:.3f}, {len(d[d.fit == 0])} logs)")
    return all(d[d.fit < 2].reset_index(drop=True).equals(ref) for d in data)

if __name__ == '__main__':
    ap = argparse.ArgumentParser(); ap.add_argument('--steps', type=int, default=1_000_000); ap.add_argument('--skip-threads', action='store_true'); ap.add_argument('--repeats', type=int, default=3)
    a = ap.parse_args()
    kw = quick_test_deep_sea_kwargs()
    print(f"MDP: DeepSeaEpisodic{kw}; CPUs: {os.cpu_count()}; load average: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as out:
        speed(kw, a.steps, out, ['process'] if a.skip_threads else ['process', 'thread'], a.repeats)
        ok = seeds_check(kw, 20_000, out)
    print(f"identical writer data across n_fit / max_workers / parallelization: {ok}")
    sys.exit(0 if ok else 1)
