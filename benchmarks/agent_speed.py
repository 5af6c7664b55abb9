"""Speed of the built-in agents in the compiled interaction loop.

Runs every built-in agent (cached hyperparameters) for T steps on MiniGridEmpty of size 6 (144 states,
3 actions), continuous or episodic as the agent requires, with Colosseum's logging (every 100 steps),
and prints the steps per second next to the targets. Each agent first makes a short run so that
compilation is not timed.

    .venv/bin/python benchmarks/agent_speed.py [T] [--stochastic]

--stochastic uses p_lazy=0.1 and Beta rewards (more to learn, more episodes, more planning).
Without `colosseum_nb.experiment.agent_mdp_interaction`, the minimal loop `colosseum_nb.agent.base.run_agent`
is used (no regret computation; the policy is still read every 100 steps).
"""
import sys, time
from colosseum_nb.mdp.minigrid_empty import MiniGridEmptyContinuous, MiniGridEmptyEpisodic
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.agent.base import run_agent
from colosseum_nb.agent.agents import AGENTS

TARGETS = dict(QLearningEpisodic=2_000_000, QLearningContinuous=2_000_000, UCRL2Continuous=60_000, PSRLContinuous=10_000)

def loop_runner():
    "A function (mdp, agent, T) -> seconds, using MDPLoop when it exists."
    try:
        from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
        def run(mdp, agent, T):
            t = time.perf_counter(); MDPLoop(mdp, agent).run(T, 100); return time.perf_counter() - t
        return run, 'MDPLoop.run(T, log_every=100)'
    except ImportError:
        def run(mdp, agent, T):
            t = time.perf_counter(); run_agent(agent, mdp, T, policy_every=100); return time.perf_counter() - t
        return run, 'run_agent (no MDPLoop yet)'

def main(T=500_000, stochastic=False):
    kw = dict(p_lazy=0.1, make_reward_stochastic=True) if stochastic else {}
    mdps = {True: MiniGridEmptyEpisodic(seed=0, size=6, **kw), False: MiniGridEmptyContinuous(seed=0, size=6, **kw)}
    run, how = loop_runner()
    print(f"T={T:,}, {how}, MiniGridEmpty size 6 (S={mdps[False].n_states}, A=3){' stochastic' if stochastic else ''}")
    print(f"{'agent':<24}{'steps/s':>14}{'target':>14}")
    for name, cls in AGENTS.items():
        mdp = mdps[cls.is_episodic()]; spec = make_mdp_spec(mdp)
        run(mdp, cls(0, spec, 2_000), 2_000)
        dt = run(mdp, cls(0, spec, T), T)
        target = TARGETS.get(name)
        print(f"{name:<24}{T / dt:>14,.0f}{'' if target is None else f'{target:>14,}'}")

if __name__ == '__main__':
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    main(int(args[0]) if args else 500_000, '--stochastic' in sys.argv)
