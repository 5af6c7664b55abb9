"""Speed of the interaction loop (`MDPLoop`) with Colosseum's indicators, on one core.

Each case runs T = 20,000 steps with the expected regret of the agent's current policy logged every
100 steps (and, for comparison, every 1,000), after a short run that compiles everything. Figures are
the median of `--repeats` timed runs (default 3), each a fresh agent built with the cached best
hyperparameters and seed 0. The reference figures are Colosseum 1.2's on the same MDPs.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/loop_speed.py [--repeats N]

The last line compares QLearningContinuous in `MDPLoop` (every 100 steps) with a bare numba loop on the
same MDP: the same agent kernels called directly, the MDP sampled from its sparse form, no policy
evaluation and no logging, i.e. the physical reference for this agent. Target: ratio >= 0.3.
"""
import os, sys, time, statistics
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
import numpy as np
import numba
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop, _sample_step, _sample_start
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.mdp.deep_sea import DeepSeaEpisodic
from colosseum_nb.mdp.minigrid_empty import MiniGridEmptyContinuous
from colosseum_nb.agent.agents import AGENTS

T = 20_000
DEEP_SEA = dict(seed=0, size=10, p_rand=0.05, make_reward_stochastic=False, randomize_actions=False)  # prms_0 of the episodic quick test
MINIGRID = dict(seed=0, size=6, p_lazy=0.05, p_rand=0.05, n_starting_states=3, make_reward_stochastic=True)
# (agent, MDP, reference steps/s every 100, reference every 1000)
CASES = [('QLearningEpisodic', 'DeepSea', 6_750, 17_700), ('QLearningContinuous', 'MiniGrid', 17_100, None),
         ('PSRLEpisodic', 'DeepSea', 6_000, None), ('PSRLContinuous', 'MiniGrid', 74, None), ('UCRL2Continuous', 'MiniGrid', 5_800, None)]

def make(name, mdp, T):
    cls = AGENTS[name]
    return cls.get_agent_instance_from_parameters(0, T, make_mdp_spec(mdp), cls.get_default_parameters())

def loop_speed(name, mdp, log_every, repeats):
    "Median steps/s of `repeats` runs of T steps (after a compiling run)."
    MDPLoop(mdp, make(name, mdp, 1_000)).run(1_000, log_every)
    out = []
    for _ in range(repeats):
        loop = MDPLoop(mdp, make(name, mdp, T))
        t = time.perf_counter(); loop.run(T, log_every); out.append(T / (time.perf_counter() - t))
    return statistics.median(out), loop.policy_evaluations

@numba.njit(cache=False)
def _bare(select, update, st, ptr, nxt, prob, rkind, rprm, lo, hi, starts, sprobs, A, T):
    np.random.seed(0)
    s = _sample_start(starts, sprobs); total = 0.0
    for t in range(T):
        a = select(st, s, t)
        sp, r = _sample_step(ptr, nxt, prob, rkind, rprm, lo, hi, A, s, a)
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

def main(repeats=3):
    mdps = dict(DeepSea=DeepSeaEpisodic(**DEEP_SEA), MiniGrid=MiniGridEmptyContinuous(**MINIGRID))
    print(f"T = {T:,} steps, one core; DeepSeaEpisodic quick-test prms_0 (S={mdps['DeepSea'].n_states}), "
          f"MiniGridEmptyContinuous size 6 (S={mdps['MiniGrid'].n_states}); median of {repeats}")
    print(f"{'agent (MDP)':<34}{'log every':>10}{'ours steps/s':>14}{'reference':>11}{'target':>11}{'ours/ref':>10}  policy evaluations")
    ql = None
    for name, m, ref100, ref1000 in CASES:
        for le, ref in ((100, ref100), (1000, ref1000)):
            v, ev = loop_speed(name, mdps[m], le, repeats)
            if name == 'QLearningContinuous' and le == 100: ql = v
            r = f"{ref:,}" if ref else '-'; tg = f"{10 * ref:,}" if ref and le == 100 else '-'
            print(f"{name + ' (' + m + ')':<34}{le:>10,}{v:>14,.0f}{r:>11}{tg:>11}{(f'{v / ref:,.0f}x' if ref else '-'):>10}  {ev}")
    bare = bare_speed(mdps['MiniGrid'], repeats)
    print(f"{'bare numba Q-learning (MiniGrid)':<34}{'-':>10}{bare:>14,.0f}")
    print(f"QLearningContinuous in MDPLoop / bare loop = {ql / bare:.2f} (target >= 0.3)")
    print("targets: 10x Colosseum's figure for the agents (orders of magnitude faster), 0.3 for the ratio")

if __name__ == '__main__':
    main(int(sys.argv[sys.argv.index('--repeats') + 1]) if '--repeats' in sys.argv else 3)
