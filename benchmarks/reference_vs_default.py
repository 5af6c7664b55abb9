"""Default benchmarks run twice, with the package's default settings and reference-compatible (Colosseum 1.2's agents
and measures, quirks included), and the final regrets of every run written to one compact CSV.

Each setting runs in its own results root (`<ROOT>/default/`, `<ROOT>/reference/`): a results folder records the
settings of its runs (`colosseum_nb_settings.yml`) and refuses runs with other settings. The runs go through the
package's own path, `colosseum_nb.benchmark.run.run_benchmarks` inside `colosseum_nb.config.use_settings`, as
`colosseum_nb run [--reference-compatible]` does. The tutorial `nbs/tutorials/reference_vs_default.ipynb` reads the
CSV and runs the tiny `QUICK_PLAN` live (also under test) through the same functions.

A plan is a list of `(benchmark, agents, n_seeds, mdps)` parts; the full plan (`PLAN`) is the continuous-communicating
benchmark with Q-learning on 10 seeds and the random agent on one (its regret hardly varies), Q-learning on the
episodic-communicating benchmark on 2 seeds, and, on seed 0, PSRL on eight of the smaller MDPs of the
continuous-communicating benchmark and UCRL2 on the four smallest (a run of theirs costs 10-100 times one of Q-learning,
and a reference-compatible UCRL2 run, with Colosseum's dense float32 extended value iteration from zero every
episode, had not finished a medium MDP after six minutes on the shared machine), all at the benchmarks' 500,000 steps. The hardness
measures of each benchmark's MDPs, both ways, go to a second CSV.

    nice -n 19 .venv/bin/python benchmarks/reference_vs_default.py [ROOT] [--cores 2] [--steps N] [--quick]
        [--out nbs/tutorials/reference_vs_default]   (writes <out>_regrets.csv and <out>_hardness.csv)
"""
import os, sys, time, argparse, zlib
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
from pathlib import Path
import pandas as pd
from colosseum_nb import config
from colosseum_nb.benchmark.benchmark import ColosseumBenchmark, ColosseumDefaultBenchmark, hardness_table
from colosseum_nb.benchmark.run import run_benchmarks, agents_configs_from
from colosseum_nb.analysis.results import load_results, final_values

SETTINGS = ('default', 'reference')  # the two settings, by the name of their results root
CC, EC = 'continuous_communicating', 'episodic_communicating'
SMALL = tuple(f'prms_{i}-{c}Continuous' for c in ('RiverSwim', 'FrozenLake') for i in (0, 1))
MEDIUM = ('prms_2-MiniGridEmptyContinuous', 'prms_3-MiniGridEmptyContinuous', 'prms_2-DeepSeaContinuous', 'prms_0-TaxiContinuous')
PLAN = [(CC, ('QLearningContinuous',), 10, None),
        (CC, ('RandomAgentContinuous',), 1, None),
        (EC, ('QLearningEpisodic',), 2, None),
        (CC, ('PSRLContinuous', 'UCRL2Continuous'), 1, SMALL),
        (CC, ('PSRLContinuous',), 1, MEDIUM)]  # UCRL2 reference-compatible: over 6 min per run here on the shared machine
QUICK_PLAN = [(CC, ('QLearningContinuous',), 1, ('prms_0-RiverSwimContinuous', 'prms_0-FrozenLakeContinuous', 'prms_0-DeepSeaContinuous'))]

def settings_of(name:str)->dict:
    "The result settings of a setting's name ('default': agents learn throughout; 'reference': Colosseum's measures and optimality stop), at the package's tolerance."
    if name not in SETTINGS: raise ValueError(f"setting={name!r}: must be one of {SETTINGS}")
    with config.reference_compatible(name == 'reference'): return config.result_settings()

def _keep(text, scopes):
    "The lines of an MDP class's gin text whose scope is in `scopes`."
    return ''.join(l + '\n' for l in text.splitlines() if l.split('/')[0] in scopes)

def benchmark_part(benchmark:str, n_seeds:int, mdps=None, n_steps:int=None)->ColosseumBenchmark:
    "A default benchmark with `n_seeds` seeds (and `n_steps` steps), restricted to the MDPs named `prms_<i>-<Class>` in `mdps`."
    postfix = f'{n_seeds}seeds' + ('' if mdps is None else f'_{zlib.crc32(" ".join(mdps).encode()):08x}')  # a folder per part
    b = ColosseumDefaultBenchmark[benchmark.upper()].get_benchmark(postfix=postfix)
    if mdps is not None:
        unknown = sorted(set(mdps) - {c.name for c in b.mdp_configs})
        if unknown: raise ValueError(f"mdps: {', '.join(unknown)} not in {benchmark}")
        keep = {c: {m.split('-')[0] for m in mdps if m.split('-', 1)[1] == c} for c in b.mdps_gin_configs}
        b = ColosseumBenchmark(b.name, {c: _keep(t, keep[c]) for c, t in b.mdps_gin_configs.items() if keep[c]}, b.experiment_config)
    changes = dict(n_seeds=n_seeds) if n_steps is None else dict(n_seeds=n_seeds, n_steps=n_steps)
    return b.with_experiment_config(**changes)

def run_setting(root, name:str, parts:list, n_cores:int=2, n_steps:int=None, progress:bool=False)->list:
    "Run the plan's `(benchmark, agents, n_seeds, mdps)` parts with the settings `name` into `root/name/`; {results folder: (benchmark, agents)}."
    old = config.get_experiments_folder()
    try:
        config.set_experiments_folder(Path(root) / name)
        with config.use_settings(settings_of(name)):
            pairs = [(agents_configs_from(list(agents)), benchmark_part(b, s, m, n_steps)) for b, agents, s, m in parts]
            return {f: (b, agents) for p, (b, agents, *_) in zip(pairs, parts) for f in run_benchmarks([p], n_cores=n_cores, progress=progress)}
    finally: config.set_experiments_folder(old)

def final_regrets(folder, name:str, benchmark:str, agents=None)->pd.DataFrame:
    "One row per run of a results folder (of `agents` only, if given): setting, benchmark, agent, MDP, seed, steps, time cut and both final regrets per step."
    df = load_results(folder, hardness=False)
    if agents is not None: df = df[df.agent.astype(str).str.removeprefix('prms_0-').isin(agents)]
    fv = final_values(df, 'normalized_cumulative_regret')
    fb = final_values(df, 'behaviour_normalized_cumulative_regret')
    out = fv[['agent', 'mdp', 'seed', 'steps', 'time_cut']].astype({'agent': str, 'mdp': str})
    out['agent'] = out.agent.str.removeprefix('prms_0-')
    out.insert(0, 'benchmark', benchmark)
    out['steps'] = out.steps + 1
    out.insert(0, 'setting', name)
    return out.assign(regret=fv.value.to_numpy(), behaviour_regret=fb.value.to_numpy()).reset_index(drop=True)

def hardness_both_ways(benchmarks:list)->pd.DataFrame:
    "The hardness measures of the benchmarks' MDPs, default and reference-compatible, one row per MDP and setting."
    rows = []
    for b in dict.fromkeys(benchmarks):
        for name in SETTINGS:
            t = hardness_table(ColosseumDefaultBenchmark[b.upper()], reference_compatible=name == 'reference')
            rows.append(t.assign(mdp=t.scope + '-' + t.mdp, benchmark=b, setting=name).drop(columns=['scope', 'seconds']))
    return pd.concat(rows, ignore_index=True)

def run_plan(root, parts:list, n_cores:int=2, n_steps:int=None, progress:bool=False, after_part=None)->pd.DataFrame:
    "Each part of a plan with both settings, one after the other; the final regrets of all runs as one table."
    tables = []
    for part in parts:
        for name in SETTINGS:
            t0 = time.perf_counter()
            folders = run_setting(root, name, [part], n_cores, n_steps, progress)
            tables += [final_regrets(f, name, b, agents) for f, (b, agents) in folders.items()]
            print(f"{part[0]}, {', '.join(part[1])}, {name}: {sum(len(t) for t in tables[-len(folders):])} runs, {time.perf_counter() - t0:.0f} s", flush=True)
        if after_part is not None: after_part(pd.concat(tables, ignore_index=True))
    return pd.concat(tables, ignore_index=True)

def _part_from(folder, name, b, agents, n_seeds, mdps):
    "The part's runs from one results folder made with the settings `name` (None when it lacks some)."
    from colosseum_nb.experiment.experiment_instances import folder_settings
    if not folder.exists() or folder_settings(folder) != settings_of(name): return None
    t = final_regrets(folder, name, b, agents)
    t = t[(t.seed < n_seeds) & (t.mdp.isin(mdps) if mdps is not None else True) & (t.steps == t.steps.max())]
    want = n_seeds * len(agents) * len(benchmark_part(b, n_seeds, mdps).mdp_configs)
    return t if len(t) == want else None

def from_full(roots:list, name:str, parts:list)->pd.DataFrame:
    """The final regrets of the plan's runs taken from default benchmarks run with the settings `name` (`colosseum_nb run --results ROOT`), each part from
    the first root holding all its runs: the same runs as the plan's (a run depends on its seed and configurations, not on how many seeds its benchmark has)."""
    tables = []
    for b, agents, n_seeds, mdps in parts:
        t = next((t for r in roots if (t := _part_from(Path(r) / f'benchmark_{b}', name, b, agents, n_seeds, mdps)) is not None), None)
        if t is None: raise SystemExit(f"{b}, {', '.join(agents)}: no results folder under {', '.join(map(str, roots))} holds the plan's {n_seeds} seeds with the {name} settings")
        tables.append(t)
    return pd.concat(tables, ignore_index=True).drop_duplicates(['benchmark', 'agent', 'mdp', 'seed'])

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('root', nargs='?', default='reference_vs_default_runs', help='results root (a second invocation resumes)')
    p.add_argument('--cores', type=int, default=2)
    p.add_argument('--steps', type=int, help="steps per run (default: the benchmarks' 500,000)")
    p.add_argument('--quick', action='store_true', help='the tiny plan of the tutorial')
    p.add_argument('--agents', help='comma-separated: run only the parts of the plan with these agents (the CSV holds every run of their folders)')
    p.add_argument('--no-hardness', action='store_true')
    p.add_argument('--out', default='nbs/tutorials/reference_vs_default')
    p.add_argument('--only', choices=SETTINGS, help="recompute only this setting's rows; the other setting's rows are kept from <out>_regrets.csv")
    p.add_argument('--from-full', nargs='+', metavar='ROOT', help="with --only: take that setting's runs from full default benchmarks in ROOT "
                   "(`colosseum_nb run --results ROOT`, e.g. benchmarks/full_default.py --keep ROOT) instead of running them")
    a = p.parse_args()
    if a.from_full and not a.only: p.error('--from-full needs --only')
    parts, t0 = QUICK_PLAN if a.quick else PLAN, time.perf_counter()
    if a.agents: parts = [(b, tuple(x for x in ag if x in a.agents.split(',')), s, m) for b, ag, s, m in parts if set(ag) & set(a.agents.split(','))]
    kept = pd.read_csv(f'{a.out}_regrets.csv').query('setting != @a.only') if a.only else None
    save = lambda df: (df if kept is None else pd.concat([kept, df], ignore_index=True).sort_values(['setting', 'benchmark', 'agent', 'mdp', 'seed'])
                       ).to_csv(f'{a.out}_regrets.csv', index=False, float_format='%.6g')  # after every part
    if a.from_full: df = from_full(a.from_full, a.only, parts); save(df)
    elif a.only:
        df = pd.concat([final_regrets(f, a.only, b, ag) for part in parts for f, (b, ag) in run_setting(a.root, a.only, [part], a.cores, a.steps, True).items()],
                       ignore_index=True)
        save(df)
    else: df = run_plan(a.root, parts, a.cores, a.steps, progress=True, after_part=save)
    print(f"{len(df)} runs, {int(df.time_cut.sum())} cut by the time budget, {time.perf_counter() - t0:.0f} s; {a.out}_regrets.csv")
    print(df.groupby(['benchmark', 'agent', 'setting']).regret.agg(['mean', 'count']).unstack('setting').to_string())
    if not a.no_hardness:
        h = hardness_both_ways([b for b, *_ in parts])
        h.to_csv(f'{a.out}_hardness.csv', index=False, float_format='%.6g')
        print(f"hardness of {h.mdp.nunique()} MDPs both ways: {a.out}_hardness.csv")

if __name__ == '__main__': main()
