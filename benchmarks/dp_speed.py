"""Speed of the dynamic-programming kernels on a random sparse MDP (45,000 states, 2 actions, 4 successors per row).

    .venv/bin/python benchmarks/dp_speed.py [S]

Times are taken after compilation (a tiny MDP is solved first). Target: a few seconds per solve.
"""
import sys, time
import numpy as np
from colosseum_nb.dynamic_programming import (random_sparse_mdp, discounted_value_iteration, backward_induction,
    discounted_policy_evaluation, greedy_policy, greedy_stochastic_policy, policy_gain, reference_dvi)

def timed(f, *args, repeat=3, **kw):
    "Best wall time of `repeat` calls, and the last result."
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter(); out = f(*args, **kw); best = min(best, time.perf_counter() - t)
    return best, out

def main(S=45_000, A=2, k=4, H=100):
    tiny = random_sparse_mdp(5, A, 2, seed=1)
    discounted_value_iteration(*tiny); backward_induction(*tiny, 3)
    discounted_policy_evaluation(*tiny, np.full((5, A), 1 / A)); policy_gain(*tiny, np.zeros(5, int), np.full(5, 0.2))
    reference_dvi(tiny[:3], tiny[3].astype(np.float32))

    mdp = random_sparse_mdp(S, A, k, seed=0)
    print(f"random sparse MDP: S={S}, A={A}, {len(mdp[1])} transitions")
    t, (Q, V) = timed(discounted_value_iteration, *mdp, gamma=0.99)
    print(f"discounted_value_iteration (gamma 0.99, tol 1e-6): {t:.3f} s")
    t, _ = timed(discounted_value_iteration, *mdp, gamma=0.999)
    print(f"discounted_value_iteration (gamma 0.999, tol 1e-6): {t:.3f} s")
    t, _ = timed(discounted_policy_evaluation, *mdp, greedy_stochastic_policy(Q), gamma=0.99)
    print(f"discounted_policy_evaluation (gamma 0.99): {t:.3f} s")
    t, _ = timed(backward_induction, *mdp, H)
    print(f"backward_induction (H={H}): {t:.3f} s")
    t, g = timed(policy_gain, *mdp, greedy_policy(Q), np.full(S, 1 / S))
    print(f"policy_gain of the greedy policy (uniform start): {t:.3f} s (gain {g:.6f})")
    t, _ = timed(reference_dvi, mdp[:3], mdp[3].astype(np.float32), repeat=1)
    print(f"reference_dvi (float32 Jacobi, eps 1e-3): {t:.3f} s")

    # a long chain (down 0.6, up 0.4, reflecting ends): the exact band elimination of policy_gain
    n = S
    ptr, nxt, prob = [0], [], []
    for s in range(n):
        row = {}
        for j, p in ((max(s - 1, 0), 0.6), (min(s + 1, n - 1), 0.4)): row[j] = row.get(j, 0.0) + p
        for j in sorted(row): nxt.append(j); prob.append(row[j])
        ptr.append(len(nxt))
    chain = (np.array(ptr), np.array(nxt), np.array(prob), np.arange(n)[:, None] / n)
    t, g = timed(policy_gain, *chain, np.zeros(n, int), np.eye(1, n, n - 1)[0])
    print(f"policy_gain of a {n}-state birth-death chain (band elimination): {t:.3f} s (gain {g:.3e})")

def rows_to_sparse(rows, R):
    "Sparse form from a list (per row s*A+a) of {next state: probability} dicts."
    ptr, nxt, prob = [0], [], []
    for row in rows:
        for j in sorted(row): nxt.append(j); prob.append(row[j])
        ptr.append(len(nxt))
    return np.array(ptr), np.array(nxt), np.array(prob), R

def add(row, j, p): row[j] = row.get(j, 0.0) + p; return row

def hard_cases(S=45_000, side=212):
    "Slow-mixing structures: a RiverSwim-like chain for value iteration, a grid random walk for policy_gain."
    rows = []
    for s in range(S):
        rows.append(add({}, max(s - 1, 0), 1.0))
        r = add({}, s, 0.6); add(r, min(s + 1, S - 1), 0.35); add(r, max(s - 1, 0), 0.05); rows.append(r)
    R = np.zeros((S, 2)); R[0, 0] = 0.005; R[S - 1, 1] = 1.0
    river = rows_to_sparse(rows, R)
    t, (Q, V) = timed(discounted_value_iteration, *river, gamma=0.99, repeat=1)
    print(f"discounted_value_iteration on a {S}-state RiverSwim-like chain (gamma 0.99): {t:.3f} s")
    t, _ = timed(discounted_value_iteration, *river, gamma=0.99, minimize=True, repeat=1)
    print(f"  same, minimize=True: {t:.3f} s")
    t, g = timed(policy_gain, *river, greedy_policy(Q), np.eye(1, S, 0)[0], repeat=1)
    print(f"  policy_gain of its greedy policy: {t:.3f} s (gain {g:.6f})")
    n = side * side; rows = []
    for s in range(n):
        x, y = divmod(s, side); r = add({}, s, 0.2)
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            xx, yy = x + dx, y + dy
            add(r, xx * side + yy if 0 <= xx < side and 0 <= yy < side else s, 0.2)
        rows.append(r)
    grid = rows_to_sparse(rows, np.random.default_rng(0).random((n, 1)))
    t, g = timed(policy_gain, *grid, np.zeros(n, int), np.full(n, 1 / n), repeat=1)
    print(f"policy_gain of a random walk on a {side}x{side} grid (band {side}, exact elimination): {t:.3f} s (gain {g:.6f})")

if __name__ == '__main__':
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 45_000)
    hard_cases()
