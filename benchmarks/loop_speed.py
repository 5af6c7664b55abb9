"""Speed of the agents in the interaction loop (`MDPLoop`), with Colosseum's indicators, on one core; and the time to the
first result of a fresh process.

Throughput. Each case runs T steps with the expected regret of the agent's current policy logged every 100 steps, after
a short run that compiles (or loads) everything. A figure is the median of `--repeats` timed runs (default 3), each a
fresh agent built with the cached best hyperparameters and seed 0. The headline column, "learning", is the throughput
with the agent learning throughout (`run(..., stop_when_optimal=False)`). The column "early stop" is the throughput of
a default run, in which, like Colosseum's loop, `MDPLoop` stops an agent's learning once its policy has been optimal for
ten logs in a row after 20% of the steps; "learned" gives the steps the agent learned for in that run. The MDPs:

* DeepSea: prms_0 of the episodic quick test (`benchmark_episodic_quick_test/mdp_configs/DeepSeaEpisodic.gin`), seed 0, 55 states;
* MiniGrid: `MiniGridEmptyContinuous(size=6, p_lazy=0.05, p_rand=0.05, n_starting_states=3, make_reward_stochastic=True, seed=0)`, 144 states.

The reference figures are Colosseum 1.2's on the same MDPs (QLearningEpisodic: 6,750 steps/s logging every 100 steps,
about 17,700 logging every 1,000).

Bare loop. QLearningContinuous learning throughout in `MDPLoop` is compared, in the same run, with a bare numba loop
written directly on the same MDP: the agent's two kernels called as plain global functions, the MDP sampled from its
sparse form, no policy evaluation and no logging, i.e. the physical reference for this agent. Target: ratio >= 0.3.

First-run latency. The seconds from the start of a run's preparation (building the MDP and the agent) to the end of a
1,000-step `MDPLoop` run logging every 100 steps, on a 15-state RiverSwim of the agent's setting, import excluded, in a
fresh Python process: "warm" with numba's disk cache filled (one process per agent, so each is the first agent of its
process), "cold, serial" with a copy of the package without any cache (all the agents one after the other in one process;
the total is the process's whole wall time, import included). `--no-cold` skips the cold measurements (minutes of compiling).

Ahead-of-time compile, cold. On another cache-less copy of the package, a fresh process starts a `LocalCluster` of
`--workers` single-threaded worker processes (default: every core) and compiles all 7 agents there with
`precompile(client=...)`, then makes each agent's first 1,000-step run itself (loaded from numba's disk cache). Printed: the
seconds of `precompile` (the headline, target < 60 s), of starting and closing the cluster, of the first runs after it,
and of the whole process; next to it, for comparison, the serial cold total above (the same work in one process).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/loop_speed.py [--repeats N] [--log-every N] [--no-cold] [--no-latency] [--no-throughput] [--workers N]
"""
import os, sys, time, statistics, subprocess, json, shutil, tempfile
from pathlib import Path
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
import numpy as np
import numba
import colosseum_nb
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.benchmark.benchmark import BENCHMARK_DATA, parse_mdp_gin
from colosseum_nb.mdp.deep_sea import DeepSeaEpisodic
from colosseum_nb.mdp.minigrid_empty import MiniGridEmptyContinuous
from colosseum_nb.agent.agents import AGENTS
from colosseum_nb.agent.agents.infinite_horizon.q_learning import _qlc_select, _qlc_step_update

MINIGRID = dict(seed=0, size=6, p_lazy=0.05, p_rand=0.05, n_starting_states=3, make_reward_stochastic=True)
# (agent, MDP, T, reference steps/s (log every 100), target steps/s with learning throughout)
CASES = [('QLearningEpisodic', 'DeepSea', 200_000, 6_750, 2_000_000), ('QLearningContinuous', 'MiniGrid', 200_000, 17_100, 2_500_000),
         ('PSRLEpisodic', 'DeepSea', 200_000, 6_000, 150_000), ('PSRLContinuous', 'MiniGrid', 20_000, 74, 10_000),
         ('UCRL2Continuous', 'MiniGrid', 20_000, 5_800, 60_000)]
REF_NOTES = {'QLearningEpisodic': ' (17,700 @1,000)'}
RATIO_TARGET, WARM_TARGET, COLD_TARGET = 0.3, 1.0, 60.0
LATENCY_AGENTS = ['QLearningEpisodic', 'PSRLEpisodic', 'RandomAgentEpisodic', 'QLearningContinuous', 'PSRLContinuous',
                  'UCRL2Continuous', 'RandomAgentContinuous']

def deep_sea():
    "prms_0 of the episodic quick test's DeepSeaEpisodic.gin, seed 0."
    cfg = next(c for c in parse_mdp_gin(BENCHMARK_DATA / 'benchmark_episodic_quick_test' / 'mdp_configs' / 'DeepSeaEpisodic.gin') if c.scope == 'prms_0')
    return DeepSeaEpisodic(seed=0, **cfg.kwargs)

def make(name, mdp, T):
    cls = AGENTS[name]
    return cls.get_agent_instance_from_parameters(0, T, make_mdp_spec(mdp), cls.get_default_parameters())

def loop_speed(name, mdp, T, log_every, repeats, learning):
    "(median steps/s of `repeats` runs of T steps after a compiling run, steps learned in the last run)."
    MDPLoop(mdp, make(name, mdp, 1_000)).run(1_000, log_every, stop_when_optimal=not learning)
    out = []
    for _ in range(repeats):
        loop = MDPLoop(mdp, make(name, mdp, T))
        t = time.perf_counter(); loop.run(T, log_every, stop_when_optimal=not learning); out.append(T / (time.perf_counter() - t))
    return statistics.median(out), (loop.stopped_optimal_at if loop.stopped_optimal_at >= 0 else T)

# The bare loop samples the MDP with its own copy of the CSR sampling (one uniform number per step, as MDPLoop) and calls
# the Q-learning kernels as global functions: what a hand-written numba loop for this agent would do.
@numba.njit(cache=True)
def _draw(p, lo, hi):
    u, c = np.random.random(), 0.0
    for k in range(lo, hi - 1):
        c += p[k]
        if u < c: return k
    return hi - 1

@numba.njit(cache=True)
def _bare(st, ptr, nxt, prob, rkind, rprm, lo, hi, starts, sprobs, A, T):
    np.random.seed(0)
    s = starts[_draw(sprobs, 0, sprobs.shape[0])]; total = 0.0
    for t in range(T):
        a = _qlc_select(st, s, t)
        k = _draw(prob, ptr[s * A + a], ptr[s * A + a + 1])
        x = rprm[k, 0] if rkind[k] == 0 else np.random.beta(rprm[k, 0], rprm[k, 1])
        sp, r = nxt[k], lo + x * (hi - lo)
        _qlc_step_update(st, s, a, r, sp, t, False)
        total += r; s = sp
    return total

def bare_speed(mdp, T, repeats):
    "Median steps/s of the bare numba Q-learning loop."
    sp, lo_hi = mdp.sparse, mdp.rewards_range
    def once(n):
        ag = make('QLearningContinuous', mdp, n)
        args = (sp.ptr, sp.nxt, sp.prob, mdp.reward_kind, mdp.reward_params, float(lo_hi[0]), float(lo_hi[1]), mdp.starting_states, mdp.starting_probs, mdp.n_actions)
        t = time.perf_counter(); _bare(ag.numba_agent.state, *args, n); return n / (time.perf_counter() - t)
    once(1_000)
    return statistics.median(once(T) for _ in range(repeats))

_HEAD = r'''
import time
t0 = time.perf_counter()
import os, sys, json
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop, precompile
from colosseum_nb.experiment.experiment_instances import local_client
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.agent.agents import AGENTS
from colosseum_nb.mdp.river_swim import RiverSwimContinuous, RiverSwimEpisodic
out = {'import': time.perf_counter() - t0}
names = sys.argv[1].split(',')
'''
# the first 1,000-step run of each agent, one after the other (shared by both children)
_FIRST_RUNS = r'''
for name in names:
    cls = AGENTS[name]
    t = time.perf_counter()
    mdp = RiverSwimEpisodic(seed=0, size=15) if cls.is_episodic() else RiverSwimContinuous(seed=0, size=15)
    agent = cls.get_agent_instance_from_parameters(0, 1000, make_mdp_spec(mdp), cls.get_default_parameters())
    MDPLoop(mdp, agent, seed=0).run(1000, 100)
    out[name] = time.perf_counter() - t
print(json.dumps(out))
'''
_CHILD = _HEAD + _FIRST_RUNS
_PAR_CHILD = _HEAD + r'''
t = time.perf_counter()
with local_client(int(sys.argv[2])) as client:
    t1 = time.perf_counter()
    out['per agent'] = precompile(names, progress=False, client=client)
    out['precompile'] = time.perf_counter() - t1
out['cluster'] = time.perf_counter() - t - out['precompile']
''' + _FIRST_RUNS

def _child(names, root, loop_cache=None, script=_CHILD, *args):
    "Seconds to the first result of each agent in `names`, run one after the other in a fresh process importing `root/colosseum_nb`."
    env = dict(os.environ, PYTHONPATH=str(root), NUMBA_NUM_THREADS='1')
    for k in ('NUMBA_CACHE_DIR', 'NUMBA_DISABLE_JIT', 'COLOSSEUM_NB_LOOP_CACHE'): env.pop(k, None)
    if loop_cache is not None: env['COLOSSEUM_NB_LOOP_CACHE'] = str(loop_cache)
    t = time.perf_counter()
    r = subprocess.run([sys.executable, '-c', script, ','.join(names), *map(str, args)], env=env, capture_output=True, text=True)
    if r.returncode != 0: raise RuntimeError(f"first-run child failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1]), time.perf_counter() - t

def _cold(root, script=_CHILD, *args):
    "`_child` of every agent on a copy of the package without any cache."
    with tempfile.TemporaryDirectory() as d:
        shutil.copytree(root / 'colosseum_nb', Path(d) / 'colosseum_nb', ignore=shutil.ignore_patterns('__pycache__', '_loop_cache'))
        return _child(LATENCY_AGENTS, d, Path(d) / 'loops', script, *args)

def latencies(cold=True, workers=None):
    "Warm: {agent: s} (one fresh process each); cold serial: ({agent: s}, total s), cold parallel: ({...}, total s), each in one fresh process on a cache-less copy of the package."
    root = Path(colosseum_nb.__file__).parent.parent
    _child(LATENCY_AGENTS, root)   # fill the cache
    runs = {n: _child([n], root)[0] for n in LATENCY_AGENTS}
    warm = {n: runs[n][n] for n in LATENCY_AGENTS}
    warm['import'] = statistics.median(r['import'] for r in runs.values())
    if not cold: return warm, None, None
    return warm, _cold(root), _cold(root, _PAR_CHILD, workers or os.cpu_count())

def print_parallel(par, serial):
    "The parallel ahead-of-time compile of every agent on a cold cache, next to the serial one; whether it is under the target."
    d, wall = par
    print(f"\nAhead-of-time compile of all {len(LATENCY_AGENTS)} agents, cold cache, fresh process (load average {os.getloadavg()[0]:.1f}):")
    print(f"  parallel, precompile(client=LocalCluster of {d['workers']} workers): {d['precompile']:.1f} s "
          f"(+ {d['cluster']:.1f} s to start and close the cluster; then the first runs here, from the cache: {sum(d[n] for n in LATENCY_AGENTS):.2f} s in all; "
          f"whole process {wall:.1f} s, import included)")
    print("    per agent in its worker, s: " + ', '.join(f"{n} {v:.1f}" for n, v in d['per agent'].items()))
    if serial: print(f"  serial, one process (the cold column above): {sum(serial[0][n] for n in LATENCY_AGENTS):.1f} s")
    ok = d['precompile'] < COLD_TARGET
    print(f"  parallel ahead-of-time compile under {COLD_TARGET:g} s: {'met' if ok else 'NOT met'}")
    return ok

def print_latencies(warm, cold):
    print(f"\nFirst 1,000-step run in a fresh process (15-state RiverSwim, import excluded), seconds; target warm < {WARM_TARGET:g} s each")
    print(f"{'agent':<24}{'warm cache':>12}{'cold, serial':>14}")
    for n in LATENCY_AGENTS: print(f"{n:<24}{warm[n]:>12.2f}{(f'{cold[0][n]:.2f}' if cold else '-'):>14}")
    cold_import = f"{cold[0]['import']:.2f}" if cold else '-'
    print(f"{'(import, not included)':<24}{warm['import']:>12.2f}{cold_import:>14}")
    first = [warm[n] for n in LATENCY_AGENTS]; met = sum(v < WARM_TARGET for v in first)
    print(f"warm: {met} of {len(first)} under {WARM_TARGET:g} s (max {max(first):.2f} s)")
    cold_total = sum(cold[0][n] for n in LATENCY_AGENTS) if cold else None
    if cold: print(f"cold, serial: {cold_total:.1f} s for all agents one after the other ({cold[1]:.1f} s for the whole process, import included)")
    return met == len(first)

def throughput_figures(repeats, log_every):
    "Print the throughput table and the bare-loop ratio; (targets met, targets)."
    mdps = dict(DeepSea=deep_sea(), MiniGrid=MiniGridEmptyContinuous(**MINIGRID))
    print(f"Regret logged every {log_every:,} steps, one core, median of {repeats} runs after compilation; steps/s")
    print(f"DeepSea = DeepSeaEpisodic quick-test prms_0 (S={mdps['DeepSea'].n_states}); "
          f"MiniGrid = MiniGridEmptyContinuous size 6 (S={mdps['MiniGrid'].n_states})")
    print(f"{'agent':<22}{'MDP':<10}{'T':>9}{'learning':>12}{'target':>12}{'met?':>6}{'early stop':>12}{'learned':>9}{'reference':>24}")
    ql, n_met = None, 0
    for name, m, T, ref, target in CASES:
        v, _ = loop_speed(name, mdps[m], T, log_every, repeats, learning=True)
        e, learned = loop_speed(name, mdps[m], T, log_every, repeats, learning=False)
        if name == 'QLearningContinuous': ql, ql_T = v, T
        met = v >= target; n_met += met
        print(f"{name:<22}{m:<10}{T:>9,}{v:>12,.0f}{target:>12,}{'yes' if met else 'NO':>6}{e:>12,.0f}{learned:>9,}{f'{ref:,}' + REF_NOTES.get(name, ''):>24}")
    bare = bare_speed(mdps['MiniGrid'], ql_T, repeats)
    print(f"{'bare numba Q-learning':<22}{'MiniGrid':<10}{ql_T:>9,}{bare:>12,.0f}")
    ratio = ql / bare
    print(f"QLearningContinuous learning in MDPLoop / bare loop = {ratio:.2f} (target >= {RATIO_TARGET}: {'met' if ratio >= RATIO_TARGET else 'NOT met'})")
    n_met += ratio >= RATIO_TARGET; total = len(CASES) + 1
    return n_met, total

def main(repeats=3, log_every=100, latency=True, cold=True, workers=None, throughput=True):
    total = n_met = 0
    if throughput: n_met, total = throughput_figures(repeats, log_every)
    if latency:
        warm, serial, par = latencies(cold, workers)
        n_met += print_latencies(warm, serial); total += 1
        if par: par[0]['workers'] = workers or os.cpu_count(); n_met += print_parallel(par, serial); total += 1
    print(f"{n_met} of {total} targets met")

if __name__ == '__main__':
    arg = lambda k, d: int(sys.argv[sys.argv.index(k) + 1]) if k in sys.argv else d
    main(arg('--repeats', 3), arg('--log-every', 100), '--no-latency' not in sys.argv, '--no-cold' not in sys.argv, arg('--workers', None), '--no-throughput' not in sys.argv)
