"""Where a default-benchmark run spends its time: each learning agent on its slowest MDP of the default benchmarks.

For every agent (`--agents`, default the five learning agents of the default benchmarks) the run is the one that was
slowest (`SLOWEST` below; seed 0; `--mdp AGENT=setting:prms_k:MDPClass` picks another), run as the
benchmark runs it: 500,000 steps (`--steps`), indicators logged every 100 steps, learning throughout (the default: no
optimality stop), the agent's cached hyperparameters, MDP and loop seeded 0.

Two figures per agent, one after the other in this process (compilation excluded: a 2,000-step warm-up run first):

* the run: wall seconds of the compiled loop (`MDPLoop.run`), the figure the benchmark's logs record;
* the parts: the same run driven from Python (`colosseum_nb.agent.base.play(..., use_numba=False)`, which calls the same
  numba kernels one at a time), with a timer around each kernel: the agent's plans (`before_start` and
  `episode_end_update`: posterior sampling and planning), the reported policy (`policy`, read at every log), the
  exact evaluation of that policy (the regret kernel: a gain solve or a backward pass, skipped when the policy is
  cached), the behaviour policy (`behaviour`, read after every plan) and its exact evaluation. "Rest" is the remainder:
  action selection, model updates, the MDP's steps and, mostly, the Python driver's overhead per step (a few
  microseconds, which the compiled loop does not pay). The driver reads the reported policy at every log, where the
  compiled loop skips an unchanged one, so its evaluations count cache look-ups the compiled loop avoids. Also printed:
  in how many states a new behaviour policy differs from the one before it (outside the timers), which says whether a
  cached gain or a low-rank update of the last gain solve could replace a full evaluation.

The logs of the two runs agree (the same kernels, the same random streams); the script checks the final cumulative regret.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/where_time_goes.py [--agents PSRLContinuous ...] [--steps 500000]
"""
import os, sys, time, argparse
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
import numpy as np

SLOWEST = {   # each agent's slowest pair: the model-based agents' by median run in the 20-seed communicating runs learning
              # throughout (2026-11-27); Q-learning's in `benchmarks/full_default.py --seeds 1` (2026-11-25, with the stop)
    'PSRLContinuous': 'continuous_communicating:prms_3:SimpleGridContinuous',
    'UCRL2Continuous': 'continuous_communicating:prms_2:SimpleGridContinuous',
    'QLearningContinuous': 'continuous_ergodic:prms_1:MiniGridRoomsContinuous',
    'PSRLEpisodic': 'episodic_communicating:prms_3:SimpleGridEpisodic',
    'QLearningEpisodic': 'episodic_communicating:prms_3:SimpleGridEpisodic',
}
PARTS = ('plans', 'reported policy', 'reported evaluation', 'behaviour policy', 'behaviour evaluation')

def benchmark_mdp(spec:str):
    "The MDP (seed 0) of `setting:prms_k:MDPClass`, as the benchmark builds it."
    from colosseum_nb.benchmark.benchmark import build_benchmark_mdps
    setting, scope, klass = spec.split(':')
    mdps = dict(build_benchmark_mdps(setting, 0))
    if f"{scope}-{klass}" not in mdps: raise SystemExit(f"--mdp {spec!r}: no {klass} with scope {scope} in the {setting} benchmark")
    return mdps[f"{scope}-{klass}"]

def make_agent(name, mdp, T, seed=0):
    "The agent with its cached hyperparameters, seeded `seed`."
    from colosseum_nb.agent.agents import agent_class
    from colosseum_nb.utils import make_mdp_spec
    cls = agent_class(name)
    return cls.get_agent_instance_from_parameters(seed, T, make_mdp_spec(mdp, cls), cls.get_default_parameters())

def timed(fn, clock, part):
    "`fn` with its seconds and calls added to `clock[part]`."
    def wrapper(*args):
        t = time.perf_counter(); r = fn(*args); c = clock[part]; c[0] += time.perf_counter() - t; c[1] += 1
        return r
    return wrapper

def tracked(fn, changes):
    "The behaviour kernel `fn`, which also appends to `changes` how many states' rows a new behaviour policy changed."
    prev = []
    def wrapper(state, pi):
        r = fn(state, pi)
        if r:
            rows = pi.reshape(-1, pi.shape[-1])
            if prev: changes.append(int((rows != prev[0]).any(1).sum()))
            prev[:] = [rows.copy()]
        return r
    return wrapper

def compiled_run(name, mdp, T, stop=False):
    "(wall seconds, final cumulative regret) of the compiled loop (`stop`: Colosseum's optimality stop)."
    from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
    loop = MDPLoop(mdp, make_agent(name, mdp, T), seed=0)
    t = time.perf_counter(); _, last = loop.run(T, 100, stop_when_optimal=stop); return time.perf_counter() - t, last['cumulative_regret']

def timed_parts(name, mdp, T, stop=False):
    "(wall seconds, {part: [seconds, calls]}, final cumulative regret, step of the optimality stop, rows changed by each new behaviour policy) of the Python-driven run with timed kernels."
    from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop, _log_columns
    from colosseum_nb.agent.base import play
    agent, clock, changes = make_agent(name, mdp, T), {p: [0.0, 0] for p in PARTS}, []
    fns = agent.numba_agent.fns
    agent.numba_agent = agent.numba_agent._replace(fns=fns._replace(
        before_start=timed(fns.before_start, clock, 'plans'), episode_end_update=timed(fns.episode_end_update, clock, 'plans'),
        policy=timed(fns.policy, clock, 'reported policy'), behaviour=tracked(timed(fns.behaviour, clock, 'behaviour policy'), changes)))
    p = MDPLoop(mdp, agent, seed=0)._plan(T, 100, np.inf, stop)   # what `MDPLoop.run` prepares: workspace, log rows, optimality tolerance
    kernels = p['regret']._replace(policy=timed(p['regret'].policy, clock, 'reported evaluation'),
                                   behaviour=timed(p['regret'].behaviour, clock, 'behaviour evaluation'))
    t = time.perf_counter()
    n, out, _ = play(agent, p['m'], T, p['raw'], p['pi_shape'], seed=p['seed'], log_every=100, regret=kernels, rws=p['rws'], opt_tol=p['opt_tol'], use_numba=False)
    wall = time.perf_counter() - t
    return wall, clock, _log_columns(p['raw'][:n], *p['baselines'])['cumulative_regret'][-1], int(out[1]), np.array(changes)

def main(agents, T, mdps, stop=False):
    print(f"{T:,} steps, log every 100, {'optimality stop' if stop else 'learning throughout'}, seed 0, compilation excluded; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores at the start")
    for name in agents:
        mdp = benchmark_mdp(mdps[name])
        compiled_run(name, mdp, 2_000); timed_parts(name, mdp, 2_000)   # compile both paths
        wall, creg = compiled_run(name, mdp, T, stop)
        pwall, clock, preg, stopped, changes = timed_parts(name, mdp, T, stop)
        if not np.isclose(creg, preg, rtol=1e-9, atol=1e-9): print(f"  warning: the two runs' final regrets differ ({creg} vs {preg})")
        print(f"\n{name} on {mdps[name]} ({mdp.n_states} states, {mdp.n_actions} actions): compiled run {wall:.2f} s; "
              f"learning {'stopped at step ' + format(stopped, ',') if stopped >= 0 else 'throughout'}")
        print(f"  Python-driven run {pwall:.2f} s, of which:")
        for p in PARTS:
            s, c = clock[p]
            if c: print(f"    {p:<22} {s:7.2f} s  {100 * s / pwall:5.1f}%  {c:>8,} calls  {1e3 * s / c:8.3f} ms each")
        rest = pwall - sum(s for s, _ in clock.values())
        print(f"    {'rest (steps, driver)':<22} {rest:7.2f} s  {100 * rest / pwall:5.1f}%")
        if len(changes):
            unit = 'stage-states' if mdp.is_episodic() else 'states'
            print(f"  a new behaviour policy differs from the one before in {np.median(changes):.0f} {unit} (median; "
                  f"in at most 5: {100 * (changes <= 5).mean():.0f}% of {len(changes):,} changes)")

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--agents', nargs='+', default=list(SLOWEST))
    ap.add_argument('--steps', type=int, default=500_000)
    ap.add_argument('--mdp', nargs='*', default=[], help='AGENT=setting:prms_k:MDPClass, overriding the slowest MDP of AGENT')
    ap.add_argument('--stop-when-optimal', action='store_true', help="Colosseum's optimality stop (default: learning throughout, as the benchmark runs)")
    a = ap.parse_args()
    mdps = dict(SLOWEST, **dict(m.split('=', 1) for m in a.mdp))
    unknown = [n for n in a.agents if n not in mdps]
    if unknown: raise SystemExit(f"--agents {unknown}: no MDP known for them; give one with --mdp AGENT=setting:prms_k:MDPClass")
    main(a.agents, a.steps, mdps, a.stop_when_optimal)
