"""What Colosseum's optimality stop does to the indicators: per case, the same run with the stop and learning throughout.

Colosseum's loop stops an agent's learning once its reported policy has been optimal for ten consecutive logs after 20% of
the steps; the agent then plays the policy it held at that moment to the end. colosseum_nb's default is learning
throughout (`MDPLoop.run(stop_when_optimal=None)`, the stop only in reference-compatible mode). Each case below is one
MDP of a default benchmark (built as the benchmark builds it, with the run's seed), one agent with its cached
hyperparameters, seeds as the benchmark seeds them, 500,000 steps (`--steps`) logged every 100, run twice in this process:
`stop_when_optimal=True` and `False`, the same seeds. Printed per case: where the stop fired, the final per-step
normalised regrets (Colosseum's "reported" indicator and the behaviour regret, the expected regret of the policy the agent
acts with), the behaviour regret per step over the last 100,000 steps (the frozen tail), the random agent's behaviour
regret on the same MDP, and the seconds of each run (compilation excluded by a warm-up run per agent).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/optimality_stop_effect.py [--steps 500000] [--cases 0 3 ...]
"""
import os, sys, time, argparse
from pathlib import Path
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
sys.path.insert(0, str(Path(__file__).parent))
from where_time_goes import make_agent   # the agent with its cached hyperparameters

CASES = [  # (agent, benchmark setting, MDP scope, MDP class, seed): the table of the issue that made learning throughout the default
    ('PSRLContinuous', 'continuous_communicating', 'prms_0', 'MiniGridRoomsContinuous', 0),
    ('PSRLContinuous', 'continuous_communicating', 'prms_0', 'MiniGridRoomsContinuous', 1),
    ('PSRLContinuous', 'continuous_communicating', 'prms_2', 'SimpleGridContinuous', 0),
    ('PSRLContinuous', 'continuous_communicating', 'prms_0', 'MiniGridEmptyContinuous', 0),
    ('UCRL2Continuous', 'continuous_communicating', 'prms_4', 'MiniGridEmptyContinuous', 0),
    ('UCRL2Continuous', 'continuous_communicating', 'prms_4', 'MiniGridEmptyContinuous', 1),
    ('PSRLEpisodic', 'episodic_communicating', 'prms_1', 'MiniGridRoomsEpisodic', 0),
    ('PSRLEpisodic', 'episodic_communicating', 'prms_1', 'MiniGridRoomsEpisodic', 1),
    ('PSRLEpisodic', 'episodic_communicating', 'prms_3', 'MiniGridEmptyEpisodic', 1),
]
TAIL = 100_000

def case_mdp(setting, scope, klass, seed):
    "The benchmark's MDP `scope-klass` of `setting`, built with the run's seed as the benchmark builds it."
    from colosseum_nb.benchmark.benchmark import build_benchmark_mdps
    return dict(build_benchmark_mdps(setting, seed))[f"{scope}-{klass}"]

def one_run(name, mdp, T, seed, stop):
    "(loop, seconds) of one run, agent and loop seeded `seed`."
    from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
    loop = MDPLoop(mdp, make_agent(name, mdp, T, seed), seed=seed)
    t = time.perf_counter(); loop.run(T, 100, stop_when_optimal=stop)
    return loop, time.perf_counter() - t

def per_step(logs, col, T):
    "(final per-step value, per-step value over the last `TAIL` steps) of a cumulative normalised indicator."
    v = logs[col].to_numpy(); s = logs.steps.to_numpy()
    i = max(0, (s <= T - 1 - TAIL).nonzero()[0][-1]) if (s <= T - 1 - TAIL).any() else 0
    return v[-1] / T, (v[-1] - v[i]) / max(1, s[-1] - s[i])

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--steps', type=int, default=500_000)
    ap.add_argument('--cases', type=int, nargs='+', help=f'indices into CASES (default: all {len(CASES)})')
    a = ap.parse_args()
    T = a.steps
    print(f"{len(a.cases or CASES)} cases, {T:,} steps, log every 100; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}", flush=True)
    warm = set()
    rows = []
    for i in (a.cases if a.cases is not None else range(len(CASES))):
        name, setting, scope, klass, seed = CASES[i]
        mdp = case_mdp(setting, scope, klass, seed)
        if name not in warm: one_run(name, mdp, 2_000, 0, False); warm.add(name)
        stop, ts = one_run(name, mdp, T, seed, True)
        thr, tt = one_run(name, mdp, T, seed, False)
        r_stop, b_stop = per_step(stop.logs, 'normalized_cumulative_regret', T)[0], per_step(stop.logs, 'behaviour_normalized_cumulative_regret', T)
        r_thr, b_thr = per_step(thr.logs, 'normalized_cumulative_regret', T)[0], per_step(thr.logs, 'behaviour_normalized_cumulative_regret', T)
        rnd = thr.logs['random_normalized_cumulative_regret'].iloc[-1] / T if 'random_normalized_cumulative_regret' in thr.logs else float('nan')
        rows.append((name, f"{scope} {klass} ({''.join(w[0].upper() for w in setting.split('_'))})", seed, stop.stopped_optimal_at,
                     r_stop, b_stop[0], b_stop[1], ts, r_thr, b_thr[0], b_thr[1], tt, rnd))
        print(f"case {i}: {name} {scope} {klass} seed {seed}: stop at {stop.stopped_optimal_at:,}, {ts:.1f} s / {tt:.1f} s", flush=True)
    print("\nFinal per-step normalised regret; 'reported' is Colosseum's indicator, 'behaviour' the policy the agent acts with, "
          f"'tail' the behaviour regret per step over the last {TAIL:,} steps")
    print("| agent, MDP (benchmark) | seed | with the stop: stopped at, reported, behaviour, tail, s | learning throughout: reported, behaviour, tail, s | random agent |")
    print("|---|---|---|---|---|")
    for (n, m, seed, at, rs, bs, tls, ts, rt, bt, tlt, tt, rnd) in rows:
        at = f"{at:,}" if at >= 0 else "never"
        print(f"| {n}, {m} | {seed} | {at}, {rs:.3f}, {bs:.3f}, {tls:.3f}, {ts:.1f} | {rt:.3f}, {bt:.3f}, {tlt:.3f}, {tt:.1f} | {rnd:.3f} |")
    tot_s, tot_t = sum(r[7] for r in rows), sum(r[11] for r in rows)
    print(f"\nseconds over the cases: {tot_s:,.1f} with the stop, {tot_t:,.1f} learning throughout (x{tot_t / max(tot_s, 1e-9):.2f})")
    return 0

if __name__ == '__main__': sys.exit(main())
