"""Aggregate steps/s of the deep agents in lockstep against the number of runs N, side by side with today's single-run
agent, learning throughout on real MDPs with the exact regret logged, on one core (or a GPU with --device cuda).

MDPs: the instances of the quick test of the agent's setting (`continuous_quick_test` / `episodic_quick_test`, seven
MDPs with the StateInfo emission map: DeepSea, FrozenLake, MiniGridEmpty, MiniGridRooms, RiverSwim, SimpleGrid, Taxi),
run k on MDP k mod 7 with seed k: runs of different observation sizes and action counts share a batch (padded and
masked). `--benchmark NAME` takes another benchmark's MDPs instead (e.g. `continuous_communicating`, its 20 MDPs, run k
on MDP k mod 20), to project a full non-tabular benchmark: with `--log-every 100` (Colosseum's benchmarks log every
100 steps) and N=64 (the runner's default batch), the script prints the projected time of that benchmark's 400 runs of
500,000 steps for the agent (20 MDPs x 20 seeds, in batches of N, on one core and on two).

- single run (today's agent): the single-run class in `MDPLoop` on each of the seven MDPs in turn, learning throughout,
  regret logged every `--log-every` steps; steps/s = steps / wall seconds of `run`.
- lockstep N: `LockstepLoop(mdps, engine).run(T, log_every)`, the N runs' exact regrets logged every `--log-every` steps
  (each run's policy evaluated on its MDP); aggregate steps/s = N x T / wall seconds of `run`.

Construction (networks, tables, the regret workspaces) is outside the clock in both; the regret kernels are compiled
before. The machine may be shared: the load average is printed; compare only figures of one run of the script.

    NUMBA_NUM_THREADS=1 python benchmarks/deep_lockstep.py [--agents DQNContinuous ...] [--n 1 20 100 400] [--steps 2000]
        [--log-every 500] [--device cpu|cuda] [--threads 1] [--repeat 1] [--path auto|host|device|both]

A shared machine's speed drifts by 10-30% over minutes: `--repeat K` times the single run and every N in K rounds, in
turn, and prints the medians (with their ranges) and, as the ratio, the median of each round's own ratio.
"""
import argparse, os, time
import numpy as np

AGENTS = ('DQNContinuous', 'BootDQNContinuous', 'ActorCriticContinuous', 'ActorCriticRNNContinuous')
DEVICE_PATH = AGENTS + ('DQNEpisodic', 'BootDQNEpisodic', 'ActorCriticEpisodic', 'ActorCriticRNNEpisodic')   # the agents whose batches `play_on_device` steps

def mdps_for(cls, n, benchmark=None):
    "n MDPs of the agent's quick test (or of `benchmark`), run k on instance k mod (number of MDPs), seed k."
    from colosseum_nb.benchmark.benchmark import benchmark_mdp_configs, MDP_CLASSES
    cfgs = benchmark_mdp_configs(benchmark or ('episodic_quick_test' if cls.is_episodic() else 'continuous_quick_test'))
    return [MDP_CLASSES[c.mdp_class](seed=k, emission_map='StateInfo', **c.kwargs) for k, c in ((k, cfgs[k % len(cfgs)]) for k in range(n))]

def single(cls, T, log_every):
    "Aggregate steps/s of the single-run class, one run after the other on the seven MDPs."
    from colosseum_nb.utils import make_mdp_spec
    from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
    steps, secs = 0, 0.0
    for k, mdp in enumerate(mdps_for(cls, 7)):
        loop = MDPLoop(mdp, cls(seed=k, mdp_specs=make_mdp_spec(mdp), optimization_horizon=T))
        t = time.perf_counter(); loop.run(T, log_every, stop_when_optimal=False); secs += time.perf_counter() - t; steps += T
    return steps / secs

def lockstep(cls, n, T, log_every, device, benchmark=None, path='auto'):
    "Aggregate steps/s of n runs in lockstep, and the mean final normalised behaviour regret (a sanity figure); `path`: 'host' (`play_batched`), 'device' (`play_on_device` where the runs fit) or 'auto' (the runner's choice)."
    from colosseum_nb.utils import make_mdp_spec
    from colosseum_nb.experiment.lockstep import LockstepLoop, lockstep_engine_class
    mdps = mdps_for(cls, n, benchmark)
    engine = lockstep_engine_class(cls)(cls, list(range(n)), [make_mdp_spec(m) for m in mdps], T, device=device)
    loop = LockstepLoop(mdps, engine)
    t = time.perf_counter(); res = loop.run(T, log_every, stop_when_optimal=False, on_device={'auto': None, 'host': False, 'device': True}[path]); dt = time.perf_counter() - t
    return n * T / dt, dt, float(np.mean([r['behaviour_normalized_cumulative_regret'] / (r['steps'] + 1) for _, r in res]))

def warm():
    "Compile the regret kernels of both settings outside the clock."
    from colosseum_nb.mdp.river_swim import RiverSwimContinuous, RiverSwimEpisodic
    from colosseum_nb.agent.agents import agent_class
    RandomAgentContinuous, RandomAgentEpisodic = agent_class("RandomAgentContinuous"), agent_class("RandomAgentEpisodic")
    from colosseum_nb.utils import make_mdp_spec
    from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
    for M, A in ((RiverSwimContinuous, RandomAgentContinuous), (RiverSwimEpisodic, RandomAgentEpisodic)):
        m = M(seed=0, size=4); MDPLoop(m, A(0, make_mdp_spec(m), 100)).run(100, 50)

def _spread(xs)->str:
    "The median of `xs`, with their range when there are several."
    return f"{np.median(xs):,.0f}" + (f" ({min(xs):,.0f}-{max(xs):,.0f})" if len(xs) > 1 else "")

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--agents', nargs='+', default=list(AGENTS))
    ap.add_argument('--n', type=int, nargs='+', default=[1, 20, 100, 400])
    ap.add_argument('--steps', type=int, default=2000)
    ap.add_argument('--log-every', type=int, default=500)
    ap.add_argument('--device', default='cpu')
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--repeat', type=int, default=1, help="rounds per agent, each timing the single run and every N in turn: medians (and ranges) of the rounds, the ratio the median of each round's own ratio")
    ap.add_argument('--no-single', action='store_true', help="skip today's single-run agent")
    ap.add_argument('--path', choices=['auto', 'host', 'device', 'both'], default='auto',
                    help="the batch's stepping: host (numba MDPs, play_batched), device (play_on_device: everything on the engine's device between logs), both side by side, or auto (device on a GPU)")
    ap.add_argument('--benchmark', help="the MDPs of this benchmark instead of the agent's quick test (and the projected time of its 400 runs)")
    a = ap.parse_args()
    if a.repeat < 1: ap.error(f"--repeat {a.repeat}: at least 1")
    from colosseum_nb.agent.non_tabular import import_torch
    from colosseum_nb.experiment.experiment_instances import agent_class_from_name
    torch = import_torch(); torch.set_num_threads(a.threads)
    warm()
    print(f"torch {torch.__version__}, device {a.device}, {a.threads} thread(s); {a.steps:,} steps per run, regret logged every {a.log_every:,}; "
          f"{a.repeat} round(s); load average {os.getloadavg()[0]:.1f}", flush=True)
    print(f"{'agent':<26}{'N':>6}{'aggregate steps/s':>26}{'x single run':>14}{'seconds':>10}{'mean final behaviour regret':>30}", flush=True)
    for name in a.agents:
        cls = agent_class_from_name(name)
        paths = (['device', 'host'] if name in DEVICE_PATH else ['host']) if a.path == 'both' else [a.path]   # the device path first: a killed run has printed it
        if a.path in ('both', 'device') and name not in DEVICE_PATH: print(f"{name}: no device path yet (play_on_device steps Colosseum's four deep agents); its batch steps on the host", flush=True)
        base, res = [], {(n, p): [] for n in a.n for p in paths}
        for _ in range(a.repeat):   # rounds: the single run and every N timed in turn, so a slow spell of a shared machine touches both
            if not a.no_single: base.append(single(cls, a.steps, a.log_every))
            for n in a.n:
                for p in paths: res[(n, p)].append(lockstep(cls, n, a.steps, a.log_every, a.device, a.benchmark, p))
        if base: print(f"{name:<26}{'single':>6}{_spread(base):>26}{1.0:>14.2f}", flush=True)
        for n, p in res:
            sps = [r[0] for r in res[(n, p)]]
            ratio = float(np.median([s / b for s, b in zip(sps, base)])) if base else float('nan')
            label = name if p == 'auto' else f"{name} ({p})"
            print(f"{label:<26}{n:>6}{_spread(sps):>26}{ratio:>14.2f}{np.median([r[1] for r in res[(n, p)]]):>10.1f}{res[(n, p)][-1][2]:>30.3f}", flush=True)
            if a.benchmark:
                h = 400 * 500_000 / float(np.median(sps)) / 3600
                where = f"{h:,.1f} h on one GPU (its host process on one core)" if a.device.startswith('cuda') else f"{h:,.1f} core-hours, {h / 2:,.1f} h on two cores"
                print(f"  projected: {a.benchmark}'s 400 runs of 500,000 steps in batches of {n}: {where} "
                      f"(from {a.steps:,} steps per run: the early steps, before the replay fills, are cheaper for DQN)", flush=True)
    print(f"load average now {os.getloadavg()[0]:.1f}")

if __name__ == '__main__': main()
