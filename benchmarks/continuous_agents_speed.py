"""Speed of the average-reward agents on the largest MDP of the continuous default benchmarks: does a 500,000-step run finish
within the benchmark's time budget (600 s per run) on one core?

The MDP: every instance of the continuous default benchmarks (`continuous_ergodic`, `continuous_communicating`) is built
with seed 0 and the one with the most states is taken. Each agent (`--agents`, default `UCRL2BContinuous`, `KLUCRLContinuous`,
`UCRL3Continuous` and, for comparison, `UCRL2Continuous`; `SCALContinuous` when named) runs in a fresh Python process with
an empty numba cache (and an empty cache of generated loops), so that its figures are:

* cold compile: the seconds of a first 1,000-step `MDPLoop` run on a 15-state continuous RiverSwim (MDP and agent built,
  every kernel compiled), imports excluded;
* the run: `--steps` steps (default 500,000) on the largest MDP with the agent's cached hyperparameters, learning throughout
  (`stop_when_optimal=False`), regret logged every 100 steps as in the default experiment configuration: wall seconds,
  steps/s, the agent's plans (episodes) and whether it stayed within the 600 s budget; "build" is the seconds to build the
  agent for the MDP, outside the run (for SCAL it includes computing the oracle span sp(h*) of the MDP).

The agents run one after the other (one process at a time, one core each). The machine may be shared: the printed
conditions (load average at the start and end) say how much.

An agent may carry extra constructor arguments after a colon, e.g. `UCRL3Continuous:support=empirical` (UCRL3's fast support
rule; `UCRL3Continuous` alone runs the published near-optimistic support selection).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/continuous_agents_speed.py [--agents UCRL2BContinuous,KLUCRLContinuous,UCRL3Continuous,UCRL2Continuous] [--steps 500000]
"""
import os, sys, json, time, tempfile, subprocess
os.environ.setdefault('NUMBA_NUM_THREADS', '1')

BUDGET = 600.0
_CHILD = r'''
import time, sys, json
t0 = time.perf_counter()
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.agent.agents import agent_class
from colosseum_nb.mdp import MDP_CLASSES
from colosseum_nb.mdp.river_swim import RiverSwimContinuous
name, cls_name, kwargs, T = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
name, _, extra = name.partition(':')   # 'Agent:key=value,...': the cached hyperparameters plus these (strings)
extra = dict(kv.split('=') for kv in extra.split(',') if kv)
cls = agent_class(name)
make = lambda mdp, T: cls(seed=0, mdp_specs=make_mdp_spec(mdp, cls), optimization_horizon=T, **cls._kwargs_from_parameters(cls.get_default_parameters()), **extra)
out = {'import': time.perf_counter() - t0}
t = time.perf_counter()
rs = RiverSwimContinuous(seed=0, size=15)
MDPLoop(rs, make(rs, 1000), seed=0).run(1000, 100)
out['cold'] = time.perf_counter() - t
mdp = MDP_CLASSES[cls_name](seed=0, **kwargs)
t = time.perf_counter(); agent = make(mdp, T); out['build'] = time.perf_counter() - t
loop = MDPLoop(mdp, agent, seed=0)
t = time.perf_counter(); loop.run(T, 100, stop_when_optimal=False); out['run'] = time.perf_counter() - t
out['plans'] = getattr(agent, 'n_episodes', -1)
out['last_step'] = int(loop.logs.steps.iloc[-1])
print(json.dumps(out))
'''

def largest_mdp():
    "(config, number of states) of the largest instance of the continuous default benchmarks."
    from colosseum_nb.benchmark.benchmark import ColosseumDefaultBenchmark, benchmark_mdp_configs
    from colosseum_nb.mdp import MDP_CLASSES
    best = None
    for b in (ColosseumDefaultBenchmark.CONTINUOUS_ERGODIC, ColosseumDefaultBenchmark.CONTINUOUS_COMMUNICATING):
        for c in benchmark_mdp_configs(b):
            n = MDP_CLASSES[c.mdp_class](seed=0, **c.kwargs).n_states
            if best is None or n > best[1]: best = (c, n, b.short_name)
    return best

def run_child(name, cfg, T):
    "The child's figures, in a fresh process with empty numba and loop caches."
    with tempfile.TemporaryDirectory(prefix='numba_cold_') as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d, COLOSSEUM_NB_LOOP_CACHE=os.path.join(d, 'loops'), NUMBA_NUM_THREADS='1')
        p = subprocess.run([sys.executable, '-c', _CHILD, name, cfg.mdp_class, json.dumps(cfg.kwargs), str(T)], env=env, capture_output=True, text=True)
    if p.returncode: raise RuntimeError(f"{name}: {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])

def main(agents=('UCRL2BContinuous', 'KLUCRLContinuous', 'UCRL3Continuous', 'UCRL2Continuous'), T=500_000):
    cfg, n, bench = largest_mdp()
    print(f"largest continuous default-benchmark MDP: {cfg.mdp_class} {cfg.scope} of {bench} ({n} states), seed 0; {T:,} steps, learning throughout")
    print(f"conditions: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start (machine shared with other processes)")
    rows = []
    for name in agents:
        r = run_child(name, cfg, T)
        ok = r['run'] <= BUDGET and r['last_step'] == T - 1
        rows.append((name, r['cold'], r['run'], T / r['run'], r['plans'], ok))
        print(f"  {name:<22} cold compile {r['cold']:6.1f} s | run {r['run']:7.1f} s, {T / r['run']:9,.0f} steps/s, {r['plans']:,} plans | "
              f"within the {BUDGET:.0f} s budget: {'yes' if ok else 'NO'} | build {r['build']:.2f} s", flush=True)
    print(f"conditions: load average {os.getloadavg()[0]:.1f} at the end")
    return rows

if __name__ == '__main__':
    arg = lambda k, d, f=str: f(sys.argv[sys.argv.index(k) + 1]) if k in sys.argv else d
    main(tuple(arg('--agents', 'UCRL2BContinuous,KLUCRLContinuous,UCRL3Continuous,UCRL2Continuous').split(',')), arg('--steps', 500_000, int))
