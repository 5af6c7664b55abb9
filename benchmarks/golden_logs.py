"""Record the logs of a fixed set of runs, and compare a later version's logs with them bit for bit.

A restructuring of the interaction loop, the runner or the engines must not change a single logged value. This script
plays a fixed set of runs and stores every logged column except the clock's (`steps_per_second`):

- every built-in tabular agent on two MDPs of each setting (the first two of `continuous_quick_test` and
  `episodic_quick_test`), 3,000 steps, a log every 100, learning throughout, in the compiled loop; the same runs with
  Colosseum's optimality stop (`stop_when_optimal=True`), where the stop step is recorded too;
- Colosseum's tabular agents in the Python loop (`use_numba=False`), and every tabular agent on DeepSea in the Python
  loop with the optimality stop;
- one lockstep batch of each deep engine (DQN, BootDQN, ActorCritic, ActorCriticRNN; 4 runs on the quick test's MDPs
  with the StateInfo emission map, 300 steps, a log every 50), when torch is installed;
- one run of the main job through dask (`colosseum_nb run` on the continuous quick test, two agents, one seed,
  2,000 steps, two worker processes), its logs read from the results folder.

    python benchmarks/golden_logs.py record logs_before.npz
    python benchmarks/golden_logs.py compare logs_before.npz     # prints every run that differs; exit status 1 if any

Both commands print the number of runs and of logged values. Floating-point results are compared bit for bit, which
holds on one machine (the same CPU, numba and torch); across machines compare with `--rtol`.
"""
import argparse, os, subprocess, sys, tempfile
from pathlib import Path
import numpy as np, pandas as pd

STEPS, LOG_EVERY = 3000, 100
CLOCK = ('steps_per_second',)

def _mdps(setting):
    "The first two MDPs of the setting's quick test."
    from colosseum_nb.benchmark.benchmark import benchmark_mdp_configs, MDP_CLASSES
    return [MDP_CLASSES[c.mdp_class](seed=k, **c.kwargs) for k, c in enumerate(benchmark_mdp_configs(f'{setting}_quick_test')[:2])]

def _frame(logs) -> dict:
    "The logged columns without the clock's, as float64 arrays."
    return {c: np.asarray(logs[c], dtype=np.float64) for c in logs.columns if c not in CLOCK}

def tabular_runs() -> dict:
    "Every tabular agent on two MDPs per setting, compiled loop (learning throughout, then with the optimality stop) and, for Colosseum's agents, the Python loop."
    from colosseum_nb.agent.agents import AGENTS, DEFAULT_RUN_AGENTS, agent_class
    from colosseum_nb.utils import make_mdp_spec
    from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
    out = {}
    for name in AGENTS:
        cls = agent_class(name)
        for k, mdp in enumerate(_mdps('episodic' if cls.is_episodic() else 'continuous')):
            ways = [('numba', True, False), ('numba-stop', True, True)] + ([('python', False, False)] if name in DEFAULT_RUN_AGENTS else [])
            if k == 0: ways.append(('python-stop', False, True))   # the Python loop's optimality stop (DeepSea: where some agents stop)
            for way, numba, stop in ways:
                loop = MDPLoop(mdp, cls(seed=k, mdp_specs=make_mdp_spec(mdp, cls), optimization_horizon=STEPS), use_numba=numba)
                loop.run(STEPS, LOG_EVERY, stop_when_optimal=stop)
                rec = _frame(loop.logs)
                rec['stopped_optimal_at'] = np.array([loop.stopped_optimal_at], float)
                out[f'tabular/{name}/{type(mdp).__name__}/{way}'] = rec
    return out

def lockstep_runs() -> dict:
    "One lockstep batch of each deep engine (skipped without torch)."
    try: import torch  # noqa: F401
    except ImportError: return {}
    from colosseum_nb.benchmark.benchmark import benchmark_mdp_configs, MDP_CLASSES
    from colosseum_nb.agent.agents import agent_class
    from colosseum_nb.utils import make_mdp_spec
    from colosseum_nb.experiment.lockstep import LockstepLoop, lockstep_engine_class
    out = {}
    for name in ('DQNContinuous', 'BootDQNContinuous', 'ActorCriticContinuous', 'ActorCriticRNNContinuous'):
        cls = agent_class(name)
        cfgs = benchmark_mdp_configs('continuous_quick_test')
        mdps = [MDP_CLASSES[c.mdp_class](seed=k, emission_map='StateInfo', **c.kwargs) for k, c in enumerate(cfgs[:4])]
        engine = lockstep_engine_class(cls)(cls, list(range(4)), [make_mdp_spec(m) for m in mdps], 300)
        loop = LockstepLoop(mdps, engine); loop.run(300, 50, stop_when_optimal=False)
        for i, l in enumerate(loop.loops): out[f'lockstep/{name}/run{i}'] = _frame(l.logs)
    return out

def dask_runs() -> dict:
    "The main job through dask: two agents on the continuous quick test, one seed, two worker processes."
    out = {}
    with tempfile.TemporaryDirectory() as d:
        cmd = [sys.executable, '-c', 'import sys; from colosseum_nb.cli import main; sys.exit(main())', 'run', '--benchmark', 'continuous_quick_test', '--agents', 'QLearningContinuous',
               'UCRL2Continuous', '--seeds', '1', '--steps', '2000', '--log-every', '100', '--cores', '2', '--results', d, '--no-progress', '--no-analysis']
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        for f in sorted(Path(d).rglob('seed*_logs.csv')):
            out['dask/' + str(f.relative_to(d))] = _frame(pd.read_csv(f))
    return out

def collect() -> dict:
    "Every run's logged values, keyed by run."
    return {**tabular_runs(), **lockstep_runs(), **dask_runs()}

def flat(runs:dict) -> dict:
    "`run|column` -> values, for `np.savez`."
    return {f'{k}|{c}': v for k, cols in runs.items() for c, v in cols.items()}

def compare(before:dict, after:dict, rtol:float=0.0) -> list:
    "The keys that differ (missing on either side, another length, or a value not equal within `rtol`; NaN equals NaN)."
    bad = sorted(set(before) ^ set(after))
    for k in sorted(set(before) & set(after)):
        a, b = before[k], after[k]
        same = a.shape == b.shape and (np.array_equal(a, b, equal_nan=True) if rtol == 0 else np.allclose(a, b, rtol=rtol, atol=0, equal_nan=True))
        if not same: bad.append(k)
    return bad

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('what', choices=['record', 'compare'])
    ap.add_argument('file', help='the .npz of recorded logs')
    ap.add_argument('--rtol', type=float, default=0.0, help='relative tolerance of compare (default 0: bit for bit)')
    a = ap.parse_args()
    os.environ.setdefault('NUMBA_NUM_THREADS', '1')
    got = flat(collect())
    runs = len({k.split('|')[0] for k in got})
    print(f"{runs} runs, {sum(v.size for v in got.values()):,} logged values")
    if a.what == 'record':
        if Path(a.file).exists(): sys.exit(f"{a.file} exists: not overwritten (remove it first)")
        np.savez_compressed(a.file, **got); print(f"recorded in {a.file}"); return
    before = dict(np.load(a.file))
    bad = compare(before, got, a.rtol)
    for k in bad: print('differs:', k)
    print(f"{len(bad)} of {len(set(before) | set(got))} logged columns differ" + ('' if a.rtol == 0 else f" (rtol {a.rtol})"))
    sys.exit(1 if bad else 0)

if __name__ == '__main__': main()
