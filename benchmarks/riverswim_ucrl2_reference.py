"""Our UCRL2-family agents against a reference implementation of the same algorithms (vanilla UCRL2 by default; `--agent UCRL2B`
for UCRL2B, `--agent KLUCRL` for KL-UCRL, `--agent UCRL3` for UCRL3, `--agent PSRL` for posterior sampling), on the 6-state RiverSwim of the literature, with the three regrets side by side: Colosseum's indicator (`cumulative_regret`, the regret of the policy an agent reports), the
behaviour regret (the exact expected regret of the policy it acts with) and the realised regret (t g* - the rewards).

The MDP: 6 states, the agent starts in the left one; "left" moves one state left (stays in state 0) with reward 0.05 in state 0;
"right" moves on with probability 0.35, stays with 0.6 and slips back with 0.05 (0.6 stay / 0.4 on in state 0, 0.6 stay / 0.4
back in state 5), with reward 1 in state 5. Optimal gain g* = 0.4286.

Agents, each for `--seeds` seeds (default 20) of `--steps` steps (default 100,000):
* ours (`--agent UCRL2`, the default): `UCRL2Continuous(bound_type_p='chernoff', alpha_p=1, alpha_r=1)` in `MDPLoop`, logging
  every `--log-every` steps (default 1,000), seed k for the agent and the run;
* the reference: `statisticalrl_learners.MDPs_discrete.UCRL2.UCRL2(nS=6, nA=2, delta=0.05)` (Jaksch, Ortner and Auer 2010,
  L1 confidence sets, extended value iteration to precision 1/t), played here step by step on the same MDP (numpy's generator
  seeded with k).
* `--agent UCRL2B`: ours `UCRL2BContinuous(alpha_p=1, alpha_r=1, delta=0.05)` (the paper's constants), the reference
  `statisticalrl_learners.MDPs_discrete.UCRL2B.UCRL2B(nS=6, nA=2, delta=0.05)` (the same sets; extended value iteration to
  precision 1/t where ours stops at 1e-3, ties broken by the least-visited action where ours breaks them at random).
* `--agent UCRL3`: ours `UCRL3Continuous(alpha_p=1, alpha_r=1, delta=0.05, support='empirical')`, the reference
  `statisticalrl_learners.MDPs_discrete.UCRL3.UCRL3(nS=6, nA=2, delta=0.05)` (Bourel, Maillard and Talebi 2020, by the authors'
  group: the same time-uniform bounds; its bisections stop at width 1e-4 where ours stop at 1e-9, extended value iteration to
  precision 1/t where ours stops at 1e-3, ties broken by the least-visited action; before the runs, `check_ucrl3_sets` feeds
  both the same random transitions and prints the largest difference of their bounds). Its near-optimistic support selection never
  adds a state (its F_in / F_out helpers start from `sum(dict)`, the sum of the state indices, so F_out stays 0): its support is
  the empirical one plus the best state, which is our `support='empirical'`. `--agent UCRL3-NOSS` runs ours with the paper's
  selection (`support='noss'`, our default) against the same reference.
The reference has one policy, the one it acts with, so its three regrets are computed from that policy: the behaviour
  regret exactly at every step (the gain of its current policy from the current state, evaluated by the same exact solver as
  ours, once per policy), Colosseum's indicator from the policy read at each log as `MDPLoop` does (per-step regrets below
  1e-3 count as 0, the policy read at a log is charged to the steps since the previous log), and the realised regret.
* `--agent KLUCRL`: ours `KLUCRLContinuous(alpha_p=1, alpha_r=1, delta=0.05)` (Filippi, Cappe and Garivier 2010, the paper's
  constants), the reference `statisticalrl_learners.MDPs_discrete.KLUCRL.KLUCRL(nS=6, nA=2, delta=0.05)` as published. Its
  bisection for the root of f(nu) = C_p / N (`search_up` on the predicate f(nu) <= C_p / N, which holds to the right of the
  root since f decreases) runs to the wrong end, nu = V_Z + 1e7: inside the observed support its optimistic transition is the
  empirical one, and it is optimistic only by moving mass to unobserved states. `--agent KLUCRL_FIXED` runs the same reference
  with that one line corrected (its module's `search_up` replaced by its own `search_down`, which finds the root), against the
  same agent of ours. The references' regrets are computed as UCRL2B's.
* `--agent PSRL`: ours plain `PSRLContinuous(no_optimistic_sampling=True, transitions_prior_prms=[1], rewards_prior_prms=[0.5, 1,
  1, 1], transitions_sampling='dense')` (the exact Dirichlet posterior sample, the planner `TSDEContinuous` shares), the
  reference `statisticalrl_learners.MDPs_discrete.PSRL.PSRL(nS=6, nA=2, delta=0.05)`: the same `Dirichlet(1 + N)` transition
  posterior and doubling episodes, one sample per episode; its rewards are drawn from a Beta posterior (fractional Bernoulli
  updates, prior Beta(1, 1)) where ours are Normal-Inverse-Gamma with prior mean 0.5, and it plans by average-reward value
  iteration to precision 1/t where ours maximises the discounted value (gamma 0.99). `--agent PSRL-SUPPORT` runs ours with the
  support sampler (`transitions_sampling='support'`, the default), against the same reference.

Printed: the mean final regrets with 95% percentile-bootstrap confidence intervals over seeds (10,000 resamples), and two
checks: the two agents' intervals overlap, for the realised regrets and for the behaviour regrets (with the p-value of a
two-sample Kolmogorov-Smirnov test of the final regrets, ours against the reference's). The behaviour regret charges each
step the gain the acting policy loses from the current state, the realised regret what the rewards fell short of t g*: they
differ by the bias of the states the run passes through, which on RiverSwim is large (the behaviour regret is above the
realised one for both implementations). The mean wall time of a run of each and their ratio
(the speed ratio) close the report. `--out FILE.csv` writes the mean curves (and their intervals) that the agent's notebook draws
(`benchmarks/riverswim_<agent>_reference.csv` by default, e.g. `riverswim_ucrl2_reference.csv`).

The reference is a benchmark-only dependency, never a runtime one. It pins old versions of numpy and others but imports only
numpy, so install it without its dependencies:

    .venv/bin/pip install --no-deps statisticalRL-learners==2.2507
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/riverswim_ucrl2_reference.py [--agent UCRL2|UCRL2B|KLUCRL|KLUCRL_FIXED|UCRL3|UCRL3-NOSS|PSRL|PSRL-SUPPORT] [--seeds 20] [--steps 100000] [--log-every 1000] [--workers 2] [--out FILE.csv]
"""
import os, sys, time
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
from pathlib import Path
from concurrent.futures import ProcessPoolExecutor
import numpy as np
import pandas as pd
from colosseum_nb.mdp.custom_mdp import CustomContinuous
from colosseum_nb.agent.agents.infinite_horizon import UCRL2Continuous, UCRL2BContinuous, UCRL3Continuous
from colosseum_nb.agent.agents.infinite_horizon import KLUCRLContinuous, PSRLContinuous
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop, _TOL, _MAX_ITER
from colosseum_nb.dynamic_programming import policy_state_gains, BAND_MEM_CAP, BAND_WORK_CAP

def _plain_psrl(seed, spec, T, sampling):
    "Plain PSRL with the reference's transition prior (pseudo-count 1) and a reward prior of mean 0.5, as its Beta(1, 1)."
    return PSRLContinuous(seed=seed, mdp_specs=spec, optimization_horizon=T, no_optimistic_sampling=True, transitions_prior_prms=[1.0],
                          rewards_prior_prms=[0.5, 1, 1, 1], transitions_sampling=sampling, reference_compatible=False)

CURVES = ('cumulative_regret', 'behaviour_cumulative_regret', 'realised_cumulative_regret')
HERE = Path(__file__).parent
AGENTS = {   # name -> (our agent from (seed, spec, steps), the reference's module and class)
    'UCRL2': (lambda seed, spec, T: UCRL2Continuous(seed=seed, mdp_specs=spec, optimization_horizon=T, bound_type_p='chernoff', alpha_p=1, alpha_r=1),
              'statisticalrl_learners.MDPs_discrete.UCRL2', 'UCRL2'),
    'UCRL2B': (lambda seed, spec, T: UCRL2BContinuous(seed=seed, mdp_specs=spec, optimization_horizon=T, alpha_p=1, alpha_r=1, delta=0.05),
               'statisticalrl_learners.MDPs_discrete.UCRL2B', 'UCRL2B'),
    'KLUCRL': (lambda seed, spec, T: KLUCRLContinuous(seed=seed, mdp_specs=spec, optimization_horizon=T, alpha_p=1, alpha_r=1, delta=0.05),
               'statisticalrl_learners.MDPs_discrete.KLUCRL', 'KLUCRL'),
    'KLUCRL_FIXED': (lambda seed, spec, T: KLUCRLContinuous(seed=seed, mdp_specs=spec, optimization_horizon=T, alpha_p=1, alpha_r=1, delta=0.05),
                     'statisticalrl_learners.MDPs_discrete.KLUCRL', 'KLUCRL', lambda mod: setattr(mod, 'search_up', mod.search_down)),
    'UCRL3': (lambda seed, spec, T: UCRL3Continuous(seed=seed, mdp_specs=spec, optimization_horizon=T, alpha_p=1, alpha_r=1, delta=0.05, support='empirical'),
              'statisticalrl_learners.MDPs_discrete.UCRL3', 'UCRL3'),
    'UCRL3-NOSS': (lambda seed, spec, T: UCRL3Continuous(seed=seed, mdp_specs=spec, optimization_horizon=T, alpha_p=1, alpha_r=1, delta=0.05, support='noss'),
                   'statisticalrl_learners.MDPs_discrete.UCRL3', 'UCRL3'),
    'PSRL': (lambda seed, spec, T: _plain_psrl(seed, spec, T, 'dense'), 'statisticalrl_learners.MDPs_discrete.PSRL', 'PSRL'),
    'PSRL-SUPPORT': (lambda seed, spec, T: _plain_psrl(seed, spec, T, 'support'), 'statisticalrl_learners.MDPs_discrete.PSRL', 'PSRL'),
}

def river_swim(seed=0):
    "The 6-state RiverSwim of the literature (Strehl and Littman 2008; Jaksch et al. 2010), starting in the left state."
    S, A = 6, 2
    T, R = np.zeros((S, A, S)), np.zeros((S, A))
    for s in range(S):
        T[s, 0, max(s - 1, 0)] = 1.0
        if s == 0: T[s, 1, 0], T[s, 1, 1] = 0.6, 0.4
        elif s == S - 1: T[s, 1, s], T[s, 1, s - 1] = 0.6, 0.4
        else: T[s, 1, s + 1], T[s, 1, s], T[s, 1, s - 1] = 0.35, 0.6, 0.05
    R[0, 0], R[S - 1, 1] = 0.05, 1.0
    return CustomContinuous(seed=seed, T=T, R=R, starting_distribution=np.eye(S)[0])

def ours(seed, steps, log_every, name='UCRL2'):
    "Our agent's log: steps and the three regrets."
    mdp = river_swim(seed)
    agent = AGENTS[name][0](seed, make_mdp_spec(mdp), steps)
    loop = MDPLoop(mdp, agent, seed=seed)
    loop.run(steps, log_every, stop_when_optimal=False)
    return loop.logs[['steps', *CURVES]].to_numpy()

def _gains(mdp, pi):
    "The gain of the stationary policy `pi` from every state (the loop's exact solver)."
    sp = mdp.sparse
    g, status = policy_state_gains(sp.ptr, sp.nxt, sp.prob, np.ascontiguousarray(sp.R, dtype=np.float64), np.ascontiguousarray(pi, dtype=np.float64),
                                    np.zeros(mdp.n_states), _TOL, _MAX_ITER, BAND_MEM_CAP, BAND_WORK_CAP)
    assert status == 0
    return g

def reference(seed, steps, log_every, name='UCRL2'):
    "The reference agent's steps and three regrets at the same logs as `ours` (rows at every multiple of `log_every`, then `steps - 1`)."
    import importlib
    if not hasattr(np, 'infty'): np.infty = np.inf   # the reference's UCRL2B still spells it so; NumPy 2 removed the alias
    mod = importlib.import_module(AGENTS[name][1])
    if len(AGENTS[name]) > 3: AGENTS[name][3](mod)   # a fix of the reference's module, applied before use
    cls = getattr(mod, AGENTS[name][2])
    mdp = river_swim(seed); T, R = mdp.T, mdp.R
    g_star = mdp.get_average_rewards()['optimal']
    np.random.seed(seed)   # the reference draws its actions (ties) from numpy's global generator
    rng = np.random.RandomState(seed + 10_000)
    agent = cls(6, 2, delta=0.05)
    s = 0; agent.reset(s)
    cache = {}
    def gains_of(pi):
        key = pi.tobytes()
        if key not in cache: cache[key] = _gains(mdp, pi)
        return cache[key]
    rows, colo, beh, cr, since = [], 0.0, 0.0, 0.0, 0
    for t in range(steps):
        a = int(agent.play(s))   # may start an episode (a new policy) before choosing
        db = max(g_star - gains_of(agent.policy)[s], 0.0)   # the regret of the policy that chose `a`
        sp = int(rng.choice(6, p=T[s, a])); r = float(R[s, a])
        agent.update(s, a, r, sp)
        if t > 0 and t % log_every == 0:   # rows cover the steps before `t`, as `MDPLoop`'s
            d = g_star - gains_of(agent.policy)[sp]
            colo += (0.0 if abs(d) <= 1e-3 or d < 0 else d) * since; since = 0
            rows.append((t, colo, beh, t * g_star - cr))
        since += 1; cr += r; beh += db; s = sp
    d = g_star - gains_of(agent.policy)[s]
    colo += (0.0 if abs(d) <= 1e-3 or d < 0 else d) * since
    rows.append((steps - 1, colo, beh, steps * g_star - cr))
    return np.array(rows)

def check_ucrl3_sets(steps=300, seed=0):
    """UCRL3 only: (largest difference of the reward and transition bounds, whether the reference's support selection added a state)
    after both agents saw the same `steps` random transitions of the RiverSwim and planned once."""
    from statisticalrl_learners.MDPs_discrete.UCRL3 import UCRL3
    from colosseum_nb.mdp.base import TimeStep, StepType
    from colosseum_nb.agent.agents.infinite_horizon.ucrl3 import noss_inner_max
    mdp = river_swim(seed); rng = np.random.RandomState(seed)
    ref = UCRL3(6, 2, delta=0.05); ref.reset(0)
    ours = UCRL3Continuous(0, make_mdp_spec(mdp), steps, delta=0.05); ours.before_start_interacting(TimeStep(StepType.FIRST, None, None, 0))
    s = 0
    for _ in range(steps):
        a = rng.randint(2); sp = int(rng.choice(6, p=mdp.T[s, a])); r = float(mdp.R[s, a])
        ref.update(s, a, r, sp); ours.step_update(TimeStep(StepType.MID, None, None, s), a, TimeStep(StepType.MID, r, 1.0, sp), 0); s = sp
    ref.new_episode(); ours.episode_end_update(); st = ours.numba_agent.state
    diff, grew = np.abs(st.rt - ref.r_upper).max(), False
    u = ref.u - ref.u.min(); order = np.argsort(u); kappa = 10 * np.ptp(u) / ref.Nkmax ** (2 / 3)
    for x in range(6):
        for a in range(2):
            E = st.supp[x, a, :st.nsupp[x, a]]
            for k, j in enumerate(E): diff = max(diff, abs(st.lb[x, a, k] - ref.p_lower[x, a][j]), abs(st.ub[x, a, k] - ref.p_upper[x, a][j]))
            diff = max(diff, abs(st.cst[x, a, 0] - ref.p_upper[x, a]['out']))
            grew |= len(ref.computeSupport(x, a, u, order, kappa * len(E))) > len(set(E.tolist()) | {int(order[-1])})
    return diff, grew

def bootstrap_ci(x, reps=10_000, level=0.95, seed=0):
    "(mean, lower, upper): percentile-bootstrap interval of the mean of `x`."
    x = np.asarray(x, float); rng = np.random.default_rng(seed)
    means = x[rng.integers(0, len(x), (reps, len(x)))].mean(1)
    return x.mean(), *np.quantile(means, [(1 - level) / 2, (1 + level) / 2])

def _run(job):
    who, seed, steps, log_every, name = job
    t = time.perf_counter()
    out = (ours if who == 'ours' else reference)(seed, steps, log_every, name)
    return who, seed, out, time.perf_counter() - t

def main(name='UCRL2', seeds=20, steps=100_000, log_every=1000, workers=2, out=None):
    if name not in AGENTS: raise ValueError(f"--agent {name!r}: must be one of {list(AGENTS)}")
    out = HERE / f"riverswim_{name.lower()}_reference.csv" if out is None else out
    jobs = [(w, k, steps, log_every, name) for k in range(seeds) for w in ('reference', 'ours')]
    ours(0, 2 * log_every, log_every, name)   # compile (or load) our loop once before the workers start
    if name.startswith('UCRL3'):
        if not hasattr(np, 'infty'): np.infty = np.inf
        for k in range(3):
            diff, grew = check_ucrl3_sets(300 * (k + 1), k)
            print(f"UCRL3 sets after {300 * (k + 1)} random steps: largest difference of the bounds {diff:.1e} (the reference bisects to 1e-4); "
                  f"the reference's support selection added a state: {'yes' if grew else 'no'}")
    res, secs = {'ours': {}, 'reference': {}}, {'ours': [], 'reference': []}
    with ProcessPoolExecutor(workers) as ex:
        for who, seed, arr, sec in ex.map(_run, jobs):
            res[who][seed] = arr; secs[who].append(sec)
            print(f"{who:>9} seed {seed:2d}: {sec:6.1f} s, final " + ', '.join(f"{c} {v:,.0f}" for c, v in zip(CURVES, arr[-1, 1:])), flush=True)
    g = river_swim().get_average_rewards()['optimal']
    print(f"\n{name}, RiverSwim (6 states, g* = {g:.4f}), {seeds} seeds x {steps:,} steps; final regrets, mean [95% bootstrap CI]")
    frames, ci = [], {}
    for who in ('ours', 'reference'):
        A = np.stack([res[who][k] for k in range(seeds)])   # seeds x rows x (steps + 3 curves)
        for j, c in enumerate(CURVES, 1):
            ci[who, c] = bootstrap_ci(A[:, -1, j])
            print(f"  {who:>9} {c:<30} {ci[who, c][0]:>10,.0f} [{ci[who, c][1]:,.0f}, {ci[who, c][2]:,.0f}]")
            lo, hi = np.quantile(A[:, :, j], [0.025, 0.975], axis=0)
            frames.append(pd.DataFrame(dict(agent=who, indicator=c, steps=A[0, :, 0].astype(int), mean=A[:, :, j].mean(0), q025=lo, q975=hi)))
    from scipy.stats import ks_2samp
    overlaps = {}
    for c in ('realised_cumulative_regret', 'behaviour_cumulative_regret'):
        (o, ol, oh), (r, rl, rh) = ci['ours', c], ci['reference', c]
        overlaps[c] = ol <= rh and rl <= oh
        fin = [np.array([res[w][k][-1, 1 + CURVES.index(c)] for k in range(seeds)]) for w in ('ours', 'reference')]
        print(f"{c}: intervals overlap {'yes' if overlaps[c] else 'NO'}; two-sample Kolmogorov-Smirnov p = {ks_2samp(*fin).pvalue:.2f}")
    overlap, inside = overlaps.values()
    if out: pd.concat(frames, ignore_index=True).to_csv(out, index=False); print(f"mean curves written to {out}")
    wo, wr = np.mean(secs['ours']), np.mean(secs['reference'])
    print(f"wall time per run ({workers} worker processes on a shared machine): ours {wo:.1f} s, reference {wr:.1f} s; speed ratio {wr / wo:.1f}x")
    print(f"{int(overlap) + int(inside)} of 2 checks passed")

if __name__ == '__main__':
    arg = lambda k, d, f=int: f(sys.argv[sys.argv.index(k) + 1]) if k in sys.argv else d
    main(arg('--agent', 'UCRL2', str), arg('--seeds', 20), arg('--steps', 100_000), arg('--log-every', 1000), arg('--workers', 2), arg('--out', None, Path))
