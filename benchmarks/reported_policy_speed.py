"""Speed of the reported policy's planner (`mean_discounted_vi`) at every log of a run, against the former Gauss-Seidel planner.

    .venv/bin/python benchmarks/reported_policy_speed.py [--agent PSRLContinuous] [--benchmark continuous_ergodic]
                                                         [--mdp prms_3-MiniGridEmptyContinuous] [--steps 200000]

The agent learns throughout (no optimality stop) with the benchmark's log every 100 steps, in the Python-driven loop so
that each call can be timed; at every log where the posterior-mean model changed, both planners solve it from their own
previous values, in alternating order, compilation excluded. Printed: calls, seconds and improvement sweeps of each, and
the states whose greedy action differs (near-ties within the planners' accuracy).
"""
import argparse, time
import numpy as np
from colosseum_nb.config import kernel
from colosseum_nb.agent.mdp_models import mean_discounted_vi, _mean_improvement_sweep, mcqueen_porteus_stop
from colosseum_nb.agent.agents import agent_class
from colosseum_nb.benchmark.benchmark import build_benchmark_mdps
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
from colosseum_nb.utils import make_mdp_spec

@kernel
def gauss_seidel_vi(N, Nsa, supp, nsupp, c, R, gamma, V, Q, tol, max_iter, n_eval=20):
    "The former planner: `mean_discounted_vi` with Gauss-Seidel evaluation sweeps (each state reads the values already updated)."
    S = R.shape[0]
    Vn, pol = np.empty(S), np.zeros(S, np.int64)
    for it in range(max_iter):
        lo, hi = _mean_improvement_sweep(N, Nsa, supp, nsupp, c, R, gamma, V, Vn, Q, pol)
        if mcqueen_porteus_stop(V, Vn, Q, gamma, tol, lo, hi): return it + 1
        V[:] = Vn
        tot = V.sum()
        for e in range(n_eval):
            for s in range(S):
                a = pol[s]
                den, acc = Nsa[s, a] + S * c, c * tot
                for k in range(nsupp[s, a]): acc += N[s, a, supp[s, a, k]] * V[supp[s, a, k]]
                v = R[s, a] + gamma * (acc / den if den > 0.0 else tot / S)
                tot += v - V[s]; V[s] = v
    return -max_iter

PLANNERS = {'Gauss-Seidel (former)': gauss_seidel_vi, 'Jacobi (mean_discounted_vi)': mean_discounted_vi}

def model(agent, st):
    "The posterior-mean model the agent's reported policy is planned on."
    if agent == 'PSRLContinuous': return st.N, st.Nsa, st.supp, st.nsupp, st.prm.c, st.nig[0], st.prm.gamma
    return st.Ns, st.Nsas, st.supp, st.nsupps, 0.0, st.rhs, st.prm.gamma

def main(agent, benchmark, mdp_name, steps):
    tiny = (np.zeros((3, 2, 3)), np.zeros((3, 2)), np.zeros((3, 2, 3), np.int64), np.zeros((3, 2), np.int64), 0.5, np.ones((3, 2)), 0.99)
    for f in PLANNERS.values(): f(*tiny, np.zeros(3), np.zeros((3, 2)), 1e-3, 1000)   # compile before timing
    mdp = dict(build_benchmark_mdps(benchmark, 0))[mdp_name]
    cls = agent_class(agent)
    ag = cls(seed=0, mdp_specs=make_mdp_spec(mdp, cls), optimization_horizon=500_000, **cls._kwargs_from_parameters(cls.get_default_parameters()))
    na = ag.numba_agent
    stats = {k: dict(seconds=0.0, sweeps=0, V=None, Q=None) for k in PLANNERS}
    calls, differ = [0], [0]
    def policy(st, pi):
        if st.stale[0]:
            m = model(agent, st); calls[0] += 1
            for k in (list(PLANNERS) if calls[0] % 2 else list(PLANNERS)[::-1]):
                d = stats[k]
                if d['V'] is None: d['V'] = st.Vp.copy()
                d['Q'] = np.zeros_like(st.Qp)
                t = time.perf_counter(); d['sweeps'] += PLANNERS[k](*m, d['V'], d['Q'], st.prm.policy_tol, 1_000_000); d['seconds'] += time.perf_counter() - t
            q0, q1 = (stats[k]['Q'] for k in PLANNERS)
            differ[0] += int((q0.argmax(1) != q1.argmax(1)).sum())
        return na.fns.policy(st, pi)
    ag.numba_agent = na._replace(fns=na.fns._replace(policy=policy))
    MDPLoop(mdp, ag, seed=0, use_numba=False).run(steps, 100, stop_when_optimal=False)
    print(f"{agent} on {benchmark} {mdp_name} ({mdp.n_states} states), {steps:,} steps learning throughout, {calls[0]:,} reported policies planned")
    for k, d in stats.items(): print(f"  {k:28s} {d['seconds']:7.2f} s  {d['sweeps']:8,} improvement sweeps")
    print(f"  states whose greedy action differs, over all calls: {differ[0]:,} of {calls[0] * mdp.n_states:,}")

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--agent', default='PSRLContinuous', choices=['PSRLContinuous', 'UCRL2Continuous'])
    ap.add_argument('--benchmark', default='continuous_ergodic')
    ap.add_argument('--mdp', default='prms_3-MiniGridEmptyContinuous')
    ap.add_argument('--steps', type=int, default=200_000)
    a = ap.parse_args()
    main(a.agent, a.benchmark, a.mdp, a.steps)
