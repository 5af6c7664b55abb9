"""Speed of the agents in the interaction loop (`MDPLoop`), with Colosseum's indicators, on one core.

Each case runs T = 20,000 steps with the expected regret of the agent's current policy logged every 100 steps,
after a short run that compiles everything. A figure is the median of `--repeats` timed runs (default 5), each a
fresh agent built with the cached best hyperparameters and seed 0. The MDPs:

* DeepSea: prms_0 of the episodic quick test (`benchmark_episodic_quick_test/mdp_configs/DeepSeaEpisodic.gin`), seed 0, 55 states;
* MiniGrid: `MiniGridEmptyContinuous(size=6, p_lazy=0.05, p_rand=0.05, n_starting_states=3, make_reward_stochastic=True, seed=0)`, 144 states.

The reference figures are Colosseum 1.2's on the same MDPs (QLearningEpisodic: 6,750 steps/s logging every 100 steps,
about 17,700 logging every 1,000). Like Colosseum's loop, `MDPLoop` stops an agent's learning once its policy has been
optimal for ten logs in a row after 20% of the steps; the column `learned` gives the steps the agent learned for.

The last line compares QLearningContinuous in `MDPLoop` with a bare numba loop on the same MDP: the same agent kernels
called directly, the MDP sampled from its sparse form, no policy evaluation and no logging, i.e. the physical
reference for this agent. Target: ratio >= 0.3.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/loop_speed.py [--repeats N] [--log-every N]
"""
import os, sys, time, statistics
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
import numpy as np
import numba
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.benchmark.benchmark import BENCHMARK_DATA, parse_mdp_gin
from colosseum_nb.mdp.deep_sea import DeepSeaEpisodic
from colosseum_nb.mdp.minigrid_empty import MiniGridEmptyContinuous
from colosseum_nb.agent.agents import AGENTS

T = 20_000
MINIGRID = dict(seed=0, size=6, p_lazy=0.05, p_rand=0.05, n_starting_states=3, make_reward_stochastic=True)
# (agent, MDP, reference steps/s (log every 100), target steps/s)
CASES = [('QLearningEpisodic', 'DeepSea', 6_750, 2_000_000), ('QLearningContinuous', 'MiniGrid', 17_100, 2_000_000),
         ('PSRLEpisodic', 'DeepSea', 6_000, 100_000), ('PSRLContinuous', 'MiniGrid', 74, 10_000),
         ('UCRL2Continuous', 'MiniGrid', 5_800, 60_000)]
REF_NOTES = {'QLearningEpisodic': ' (17,700 @1,000)'}
RATIO_TARGET = 0.3

def deep_sea():
    "prms_0 of the episodic quick test's DeepSeaEpisodic.gin, seed 0."
    cfg = next(c for c in parse_mdp_gin(BENCHMARK_DATA / 'benchmark_episodic_quick_test' / 'mdp_configs' / 'DeepSeaEpisodic.gin') if c.scope == 'prms_0')
    return DeepSeaEpisodic(seed=0, **cfg.kwargs)

def make(name, mdp, T):
    cls = AGENTS[name]
    return cls.get_agent_instance_from_parameters(0, T, make_mdp_spec(mdp), cls.get_default_parameters())

def loop_speed(name, mdp, log_every, repeats):
    "(median steps/s of `repeats` runs of T steps after a compiling run, steps learned in the last run)."
    MDPLoop(mdp, make(name, mdp, 1_000)).run(1_000, log_every)
    out = []
    for _ in range(repeats):
        loop = MDPLoop(mdp, make(name, mdp, T))
        t = time.perf_counter(); loop.run(T, log_every); out.append(T / (time.perf_counter() - t))
    return statistics.median(out), (loop.stopped_optimal_at if loop.stopped_optimal_at >= 0 else T)

# The bare loop samples the MDP with its own copies of the CSR sampling (one uniform number per step, as MDPLoop).
@numba.njit(cache=False)
def _draw(p, lo, hi):
    u, c = np.random.random(), 0.0
    for k in range(lo, hi - 1):
        c += p[k]
        if u < c: return k
    return hi - 1

@numba.njit(cache=False)
def _bare(select, update, st, ptr, nxt, prob, rkind, rprm, lo, hi, starts, sprobs, A, T):
    np.random.seed(0)
    s = starts[_draw(sprobs, 0, sprobs.shape[0])]; total = 0.0
    for t in range(T):
        a = select(st, s, t)
        k = _draw(prob, ptr[s * A + a], ptr[s * A + a + 1])
        x = rprm[k, 0] if rkind[k] == 0 else np.random.beta(rprm[k, 0], rprm[k, 1])
        sp, r = nxt[k], lo + x * (hi - lo)
        update(st, s, a, r, sp, t, False)
        total += r; s = sp
    return total

def bare_speed(mdp, repeats):
    "Median steps/s of the bare numba Q-learning loop."
    sp, lo_hi = mdp.sparse, mdp.rewards_range
    def once(n):
        ag = make('QLearningContinuous', mdp, n); fns = ag.numba_agent.fns
        args = (sp.ptr, sp.nxt, sp.prob, mdp.reward_kind, mdp.reward_params, float(lo_hi[0]), float(lo_hi[1]), mdp.starting_states, mdp.starting_probs, mdp.n_actions)
        t = time.perf_counter(); _bare(fns.select, fns.step_update, ag.numba_agent.state, *args, n); return n / (time.perf_counter() - t)
    once(1_000)
    return statistics.median(once(T) for _ in range(repeats))

def main(repeats=5, log_every=100):
    mdps = dict(DeepSea=deep_sea(), MiniGrid=MiniGridEmptyContinuous(**MINIGRID))
    print(f"T = {T:,} steps, regret logged every {log_every:,} steps, one core, median of {repeats} runs after compilation")
    print(f"DeepSea = DeepSeaEpisodic quick-test prms_0 (S={mdps['DeepSea'].n_states}); "
          f"MiniGrid = MiniGridEmptyContinuous size 6 (S={mdps['MiniGrid'].n_states})")
    print(f"{'agent':<22}{'MDP':<10}{'ours steps/s':>14}{'reference steps/s':>28}{'target':>12}{'met?':>6}{'learned':>9}")
    ql, n_met = None, 0
    for name, m, ref, target in CASES:
        v, learned = loop_speed(name, mdps[m], log_every, repeats)
        if name == 'QLearningContinuous': ql = v
        met = v >= target; n_met += met
        print(f"{name:<22}{m:<10}{v:>14,.0f}{f'{ref:,}' + REF_NOTES.get(name, ''):>28}{target:>12,}{'yes' if met else 'NO':>6}{learned:>9,}")
    bare = bare_speed(mdps['MiniGrid'], repeats)
    print(f"{'bare numba Q-learning':<22}{'MiniGrid':<10}{bare:>14,.0f}")
    ratio = ql / bare
    print(f"QLearningContinuous in MDPLoop / bare loop = {ratio:.2f} (target >= {RATIO_TARGET}: {'met' if ratio >= RATIO_TARGET else 'NOT met'})")
    print(f"{n_met + (ratio >= RATIO_TARGET)} of {len(CASES) + 1} targets met")

if __name__ == '__main__':
    arg = lambda k, d: int(sys.argv[sys.argv.index(k) + 1]) if k in sys.argv else d
    main(arg('--repeats', 5), arg('--log-every', 100))
