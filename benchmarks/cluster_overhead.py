"""The cost of running experiment instances on dask, three figures:

1. Overhead: `--n-tiny` tiny instances (2,000 by default, about a millisecond of interaction each) on a 2-worker
   local cluster (`local_client(2)`: fresh worker processes, since this runs as a script), against their summed in-process run time divided by 2 (target: within 2x). The cluster is warm (its
   workers started and the agent's kernels compiled), so the figure is the scheduling cost; the cold figure (cluster
   start and compilation included) is printed too, and so is the time of the same runs split by hand over the two
   workers (one task each): the part of the gap that is the machine, not the scheduling.
2. Colosseum's episodic quick test (7 MDPs x 2 seeds x the episodic agents, 50,000 steps each) on SLURM with 2 worker
   jobs against in-process: both wall times and their ratio (`--no-slurm` skips 2 and 3).
3. Time from `slurm_cluster(...)` to the first result (one tiny instance).
4. Start-up of the default local cluster, both kinds side by side: dask's `LocalCluster` (what a notebook or a script run
   as a module gets) and fresh worker processes (what a plain script or stdin gets: `local_cluster` starts each worker
   with `python -m distributed.cli.dask_spec`, so that nothing of the script runs again), from the call to both workers
   connected, and to the result of 20 tiny runs (`--no-startup` skips it).

Run from the repository root: `PYTHONPATH=$PWD NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/cluster_overhead.py`. A
local SLURM: `tools/slurm_localhost.sh start`. Timings on a shared machine are noisy: run it on a quiet one for figures.
"""
import argparse, os, tempfile, time
from pathlib import Path
import distributed
from colosseum_nb.benchmark.benchmark import CACHED_HYPERPARAMETERS, ColosseumDefaultBenchmark, benchmark_mdp_configs
from colosseum_nb.experiment import ExperimentConfig, ExperimentInstance
from colosseum_nb.experiment.experiment_instances import local_client, run_experiment_instance, run_experiment_instances
from colosseum_nb.cluster import slurm_cluster, slurm_problem

TINY = ExperimentConfig(n_seeds=1, n_steps=200, max_interaction_time_s=60, log_performance_indicators_every=100)
QUICK_AGENTS = ('QLearningEpisodic', 'PSRLEpisodic', 'RandomAgentEpisodic')


def tiny(seed, folder):
    return ExperimentInstance(seed, 'RiverSwimEpisodic', 'prms_0', None, 'QLearningEpisodic', 'prms_0', None, str(folder), TINY,
                              mdp_gin_text='prms_0/RiverSwimEpisodic.size = 3')


def _warm(folder):
    "Run one tiny instance on a worker (its kernels compiled before the clock starts)."
    run_experiment_instance(tiny(0, Path(folder) / str(os.getpid())))


def _run_many(insts):
    "Run instances one after the other on one worker, no scheduling: the machine's raw capacity."
    for i in insts: run_experiment_instance(i)


def overhead(root, n):
    run_experiment_instance(tiny(0, root / 'warm_here'))                       # compile in this process first
    t0 = time.perf_counter()
    here = run_experiment_instances([tiny(s, root / 'here') for s in range(n)], n_cores=1, show_progress=False)
    summed = time.perf_counter() - t0
    t0 = time.perf_counter()
    with local_client(2) as client:
        client.run(_warm, str(root / 'warm'))
        t1 = time.perf_counter()
        s = run_experiment_instances([tiny(s, root / 'dask') for s in range(n)], client=client, show_progress=False)
        warm = time.perf_counter() - t1
        workers = list(client.scheduler_info()['workers'])
        t1 = time.perf_counter()
        parts = [[tiny(s, root / 'raw') for s in range(k, n, len(workers))] for k in range(len(workers))]
        client.gather([client.submit(_run_many, p, workers=[w], pure=False) for p, w in zip(parts, workers)])
        raw = time.perf_counter() - t1
    cold = time.perf_counter() - t0
    assert len(here.done) == len(s.done) == n
    print(f"1. {n} tiny instances: in-process sum {summed:.2f} s ({1e3 * summed / n:.2f} ms each); 2-worker local cluster "
          f"{warm:.2f} s warm ({cold:.2f} s with cluster start and compilation); target {summed:.2f} s (2 x sum/2): "
          f"warm/(sum/2) = {warm / (summed / 2):.2f}. The same runs split by hand over the two workers (one task each, no "
          f"scheduling) take {raw:.2f} s: run_experiment_instances/by hand = {warm / raw:.2f} (the rest is the machine: "
          f"two processes on {os.cpu_count()} shared cores)", flush=True)


def quick_test_instances(folder, agents=QUICK_AGENTS):
    b = ColosseumDefaultBenchmark.EPISODIC_QUICK_TEST
    cfg = b.experiment_config
    out = []
    for seed in range(cfg.n_seeds):
        for m in benchmark_mdp_configs(b):
            for a in agents:
                gin = CACHED_HYPERPARAMETERS / f'{a}.gin'
                out.append(ExperimentInstance(seed, m.mdp_class, m.scope, str(b.mdp_configs_folder / f'{m.mdp_class}.gin'), a, 'prms_0',
                                              str(gin) if gin.exists() else None, str(folder), cfg))
    return out


def quick_test(root, agents):
    insts = quick_test_instances(root / 'quick_here', agents)
    t0 = time.perf_counter()
    run_experiment_instances(insts, n_cores=1, show_progress=False)
    here = time.perf_counter() - t0
    t0 = time.perf_counter()
    cluster = slurm_cluster(queue='debug', cores=1, memory='2GB', walltime='01:00:00', jobs=2, log_directory=root / 'logs', interface='lo')
    with distributed.Client(cluster) as client:
        s = run_experiment_instances(quick_test_instances(root / 'quick_slurm', agents), client=client, show_progress=False)
    on_slurm = time.perf_counter() - t0
    cluster.close()
    assert len(s.done) == len(insts), s
    print(f"2. episodic quick test ({len(insts)} runs, {', '.join(agents)}): in-process {here:.1f} s, SLURM with 2 worker jobs "
          f"{on_slurm:.1f} s (from slurm_cluster(...) to the last result); SLURM/in-process = {on_slurm / here:.2f}", flush=True)


def first_result(root):
    t0 = time.perf_counter()
    cluster = slurm_cluster(queue='debug', cores=1, memory='1GB', walltime='00:30:00', jobs=1, log_directory=root / 'logs', interface='lo')
    with distributed.Client(cluster) as client:
        run_experiment_instances([tiny(0, root / 'first')], client=client, show_progress=False)
        dt = time.perf_counter() - t0
    cluster.close()
    print(f"3. from slurm_cluster(...) to the first result: {dt:.1f} s (job start, worker start, kernel compilation, one tiny run)", flush=True)


def startup(root, repeats=3):
    "Seconds from `local_client(2)` to both workers connected, and to 20 tiny runs done, for each kind of local cluster."
    import colosseum_nb.experiment.workers as workers   # where local_cluster looks up main_reruns_in_workers
    out = {}
    for kind, reruns in (('LocalCluster', False), ('fresh processes', True)):
        workers.main_reruns_in_workers = lambda reruns=reruns: reruns
        ready, done = [], []
        for r in range(repeats):
            t0 = time.perf_counter()
            with local_client(2) as client:
                ready.append(time.perf_counter() - t0)
                run_experiment_instances([tiny(s, root / f'startup_{r}_{reruns}') for s in range(20)], client=client, show_progress=False)
                done.append(time.perf_counter() - t0)
        out[kind] = (min(ready), min(done))
    print("4. local cluster of 2 workers, best of {}: ".format(repeats) + '; '.join(
        f"{k} ready in {a:.2f} s, 20 tiny runs done in {b:.2f} s" for k, (a, b) in out.items()), flush=True)


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--n-tiny', type=int, default=2000)
    ap.add_argument('--no-slurm', action='store_true')
    ap.add_argument('--no-startup', action='store_true')
    ap.add_argument('--agents', default=','.join(QUICK_AGENTS))
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix='cluster_overhead_'))
    print(f"results in {root}; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
    overhead(root, args.n_tiny)
    if not args.no_startup: startup(root)
    if args.no_slurm: raise SystemExit(0)
    problem = slurm_problem()
    if problem: raise SystemExit(f"no SLURM ({problem}): start one with tools/slurm_localhost.sh start, or pass --no-slurm")
    first_result(root)
    quick_test(root, tuple(args.agents.split(',')))
