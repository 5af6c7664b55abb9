"""Speed of the episodic baselines added beyond Colosseum (UCBVIEpisodic, OPSRLEpisodic and RLSVIEpisodic) on the largest
episodic MDP of the default benchmarks, learning throughout, on one core.

The MDP: the instance of `episodic_communicating` / `episodic_ergodic` with the most states, then the most transitions
(seed 0). Each case runs `--steps` steps (default 200,000) in `MDPLoop` with the benchmarks' log every 100 steps and
`stop_when_optimal=False` (learning throughout, the worst case), after a 2,000-step run of the same agent in the same
process that compiles (or loads) everything. Printed per case: steps/s (the median of `--repeats` runs, default 3, each a
fresh agent with seed 0), the wall seconds of one run, the projected wall seconds of a 500,000-step run, and the cold
compile time (once per agent class): the seconds of a fresh process whose numba and loop caches are empty folders, from building the agent to
the end of a 1,000-step run (import excluded). Each figure is given in wall time and in the process's CPU time (steps per
CPU second, `time.process_time`): on a machine shared with other jobs the wall figures measure the load as much as the
agent, the CPU figures much less so. Target: >= 50,000 steps/s (judged on steps per CPU second) for UCBVI and OPSRL(J=8) (RLSVI is measured, with no target of its own). OPSRL runs as
published (every pair resampled every episode) and as its fast variant (`resample='visited'`: only the pairs visited since
their last draw). Colosseum's QLearningEpisodic and PSRLEpisodic are measured beside them for scale, and OPSRL with its
first sampler (`sampler='numpy'`).
`--only LABEL ...` runs only the cases of these labels (as printed, e.g. `'OPSRLEpisodic(J=8)'`).

The machine may be shared with other jobs: the load average is printed with the figures.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/episodic_baselines_speed.py [--steps N] [--repeats N] [--no-cold] [--only LABEL ...]
"""
import os, sys, time, statistics, subprocess, tempfile, json
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
from colosseum_nb.benchmark.benchmark import build_benchmark_mdps
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
from colosseum_nb.agent.agents import AGENTS
from colosseum_nb.utils import make_mdp_spec

TARGET = 50_000
CASES = [('UCBVIEpisodic', {}, True), ('UCBVIEpisodic', dict(bonus_type='bernstein'), True), ('UCBVIEpisodic', dict(bonus_type='hoeffding', greedy=True), True),
         ('OPSRLEpisodic', dict(J=8), True), ('OPSRLEpisodic', dict(J=8, resample='visited'), True), ('OPSRLEpisodic', dict(J=8, sampler='numpy'), False), ('RLSVIEpisodic', {}, False), ('QLearningEpisodic', {}, False), ('PSRLEpisodic', {}, False)]

def largest_mdp():
    "(name, MDP) of the default episodic benchmarks with the most states, then transitions."
    pairs = [(f"{b}/{n}", m) for b in ('episodic_communicating', 'episodic_ergodic') for n, m in build_benchmark_mdps(b)]
    return max(pairs, key=lambda p: (p[1].n_states, int(p[1].sparse.ptr[-1])))

def make(name, kw, mdp, T):
    cls = AGENTS[name]
    return cls.get_agent_instance_from_parameters(0, T, make_mdp_spec(mdp), cls.get_default_parameters()) if not kw else \
        cls(0, make_mdp_spec(mdp), T, **{**cls.get_default_parameters(), **kw})

def throughput(name, kw, mdp, T, repeats):
    "(steps/s median, seconds of one run)."
    MDPLoop(mdp, make(name, kw, mdp, 2000), seed=0).run(2000, 100, stop_when_optimal=False)
    secs, cpus = [], []
    for _ in range(repeats):
        agent = make(name, kw, mdp, T); loop = MDPLoop(mdp, agent, seed=0)
        t, c = time.perf_counter(), time.process_time(); loop.run(T, 100, stop_when_optimal=False)
        secs.append(time.perf_counter() - t); cpus.append(time.process_time() - c)
    s, c = statistics.median(secs), statistics.median(cpus)
    return T / s, s, T / c

COLD = """
import time, json, sys
sys.path.insert(0, {here!r})
import episodic_baselines_speed as b
name, mdp = b.largest_mdp()
t, c = time.perf_counter(), time.process_time()
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
MDPLoop(mdp, b.make({agent!r}, {kw!r}, mdp, 1000), seed=0).run(1000, 100, stop_when_optimal=False)
print(json.dumps([time.perf_counter() - t, time.process_time() - c]))
"""

def cold_compile(name, kw):
    "Seconds of a first 1,000-step run in a fresh process with empty numba and loop caches."
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d + '/numba', COLOSSEUM_NB_LOOP_CACHE=d + '/loops', NUMBA_NUM_THREADS='1')
        code = COLD.format(here=os.path.dirname(os.path.abspath(__file__)), agent=name, kw=kw)
        out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

def label_of(agent, kw):
    "The printed name of a case."
    return agent + (f"({', '.join(f'{k}={v!r}' for k, v in kw.items())})" if kw else '')

def main(T=200_000, repeats=3, cold=True, only=None):
    name, mdp = largest_mdp()
    print(f"{name}: {type(mdp).__name__}, {mdp.n_states} states, {mdp.n_actions} actions, H = {mdp.H}, {int(mdp.sparse.ptr[-1])} transitions; "
          f"{T:,} steps, log every 100, learning throughout; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    print(f"{'agent':<48} {'steps/s':>10} {'run (s)':>8} {'500k (s)':>9} {'steps/CPU-s':>12} {'cold (s)':>9} {'cold CPU-s':>10}  target (on steps/CPU-s)")
    done = set()
    for agent, kw, targeted in CASES:
        if agent not in AGENTS or (only and label_of(agent, kw) not in only): continue
        sps, sec, cps = throughput(agent, kw, mdp, T, repeats)
        cw, cc = cold_compile(agent, kw) if cold and agent not in done else (float('nan'), float('nan'))   # once per class: the variants share the kernels
        done.add(agent)
        label = label_of(agent, kw)
        verdict = ('ok' if cps >= TARGET else 'BELOW') + f" (>= {TARGET:,})" if targeted else ''
        print(f"{label:<48} {sps:>10,.0f} {sec:>8.2f} {500_000 / sps:>9.1f} {cps:>12,.0f} {cw:>9.1f} {cc:>10.1f}  {verdict}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")

if __name__ == '__main__':
    arg = lambda k, d, f=int: f(sys.argv[sys.argv.index(k) + 1]) if k in sys.argv else d
    only = sys.argv[sys.argv.index('--only') + 1:] if '--only' in sys.argv else None   # the last option
    main(arg('--steps', 200_000), arg('--repeats', 3), '--no-cold' not in sys.argv, only)
