"""Seconds a lockstep batch spends on its runs' exact regrets at the logs, on one thread and on several, side by side.

Where a batch computes on a GPU the host's cores are free, and `regret_threads` gives the batch all of them for the
exact regrets at its logs (the reported policy's and the behaviour policy's of every run: numba kernels that release
the GIL, each run with its own workspace). This script plays the same batch -- DQNContinuous on the MDPs of a default
benchmark seen through `StateInfo` (run k on MDP k mod 20), the host-stepped path on the CPU -- once per thread count,
in one process, and prints the wall seconds of the whole batch and of its logs' regret work (`BatchRuns._evaluate` and
`BatchRuns._read_behaviour`, timed around their calls), and checks that the logs are the same.

    NUMBA_NUM_THREADS=1 python benchmarks/regret_threads.py [--n 40] [--steps 1000] [--log-every 100] [--threads 1 2]
        [--benchmark continuous_communicating]
"""
import argparse, os, time
import numpy as np

def play(n, T, log_every, threads, benchmark):
    "Wall seconds of the batch, seconds inside its regret work at the logs, and its logs (seconds left out)."
    import deep_lockstep
    from colosseum_nb.utils import make_mdp_spec
    from colosseum_nb.agent.dqn import DQNContinuous
    from colosseum_nb.agent.lockstep_dqn import LockstepDQN
    from colosseum_nb.experiment import lockstep as L
    mdps = deep_lockstep.mdps_for(DQNContinuous, n, benchmark)
    engine = LockstepDQN(DQNContinuous, list(range(n)), [make_mdp_spec(m) for m in mdps], T)
    loop = L.LockstepLoop(mdps, engine)
    plans, outs, kws = loop._prepare(T, log_every, np.inf, False)
    spent = [0.0]
    def timed(f):
        def g(*a, **k):
            t = time.perf_counter(); r = f(*a, **k); spent[0] += time.perf_counter() - t; return r
        return g
    saved = L.BatchRuns._evaluate, L.BatchRuns._read_behaviour
    L.BatchRuns._evaluate, L.BatchRuns._read_behaviour = timed(saved[0]), timed(saved[1])
    try:
        t = time.perf_counter(); rows = L.play_batched(engine, kws, threads=threads); wall = time.perf_counter() - t
    finally: L.BatchRuns._evaluate, L.BatchRuns._read_behaviour = saved
    logs = [np.delete(p['raw'][:k], 5, 1) for p, k in zip(plans, rows)]
    return wall, spent[0], logs

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--n', type=int, default=40); ap.add_argument('--steps', type=int, default=1000)
    ap.add_argument('--log-every', type=int, default=100); ap.add_argument('--threads', type=int, nargs='+', default=[1, 2])
    ap.add_argument('--benchmark', default='continuous_communicating')
    a = ap.parse_args()
    from colosseum_nb.agent.non_tabular import import_torch
    import_torch().set_num_threads(1)
    play(2, 200, 100, 1, a.benchmark)   # compile the kernels outside the clock
    print(f"DQNContinuous, {a.n} runs on {a.benchmark}'s MDPs (StateInfo), {a.steps:,} steps, regret logged every {a.log_every}; "
          f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
    print(f"{'threads':>8}{'batch seconds':>16}{'regret seconds at the logs':>30}", flush=True)
    first = None
    for k in a.threads:
        wall, spent, logs = play(a.n, a.steps, a.log_every, k, a.benchmark)
        print(f"{k:>8}{wall:>16.1f}{spent:>30.1f}", flush=True)
        if first is None: first = logs
        else: assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(first, logs)), "the logs differ with the number of threads"
    print("the logs are the same whatever the number of threads")

if __name__ == '__main__': main()
