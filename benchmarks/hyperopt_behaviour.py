"""What a hyperparameter search on the behaviour regret picks for Q-learning on the episodic communicating benchmark, and how much that moves the table.

Colosseum chose the cached hyperparameters with its own indicator (the regret of the policy an agent reports). This
script runs one random search for `QLearningEpisodic` (Colosseum's search space and sampler, the package's defaults:
learning throughout), selects from the same runs the configuration best by each indicator, then runs both picks on the
episodic communicating benchmark (Colosseum's 20 MDPs, 500,000 steps, a log every 100 steps) for the seeds the package
ships, and prints, beside the shipped runs of the cached hyperparameters (the same MDPs and seeds), the mean final
value of both indicators and the IQM of the behaviour regret's score with its 95% bootstrap interval, with the other
shipped agents of the setting for reference. Figures print as they are measured.

    NUMBA_NUM_THREADS=1 python benchmarks/hyperopt_behaviour.py --cores 2 [--configs 20 --mdps 2 --steps 100000 --seeds 7]

The search is smaller than Colosseum's default (50 configurations x 5 MDPs per family x 3 seeds x 250,000 steps):
`--configs`, `--mdps`, `--search-seeds` and `--steps` set it. The work folder (`--work`, default a new temporary
folder) keeps every run, so an interrupted invocation with the same `--work` resumes.
"""
import argparse, sys, tempfile, time
from pathlib import Path

import numpy as np
import pandas as pd

from colosseum_nb import config
from colosseum_nb.agent.agents.episodic import QLearningEpisodic
from colosseum_nb.benchmark import ColosseumDefaultBenchmark
from colosseum_nb.benchmark.run import (instantiate_and_get_exp_instances_from_agents_and_benchmarks,
                                        instantiate_and_get_exp_instances_from_agents_and_benchmarks_for_hyperopt, run_instances)
from colosseum_nb.experiment.experiment_instances import local_client
from colosseum_nb.hyperopt.base import HyperOptConfig
from colosseum_nb.hyperopt.selection import hyperopt_scores, get_best_agent_gin_config
from colosseum_nb.hyperopt.utils import sample_agent_configs_and_benchmarks_for_hyperopt
from colosseum_nb.analysis import load_results, final_values
from colosseum_nb.analysis.published import load_published, rank_agents

BENCHMARK = 'episodic_communicating'

def search(work:Path, conf:HyperOptConfig, client):
    "Run the search's instances (resuming) in `work/hyperopt`."
    config.set_hyperopt_folder(str(work), 'hyperopt')
    pairs = sample_agent_configs_and_benchmarks_for_hyperopt([QLearningEpisodic], conf)
    insts = instantiate_and_get_exp_instances_from_agents_and_benchmarks_for_hyperopt(pairs)
    t0 = time.perf_counter()
    run_instances(insts, client=client, progress=False, desc='search')
    print(f"search: {len(insts)} runs of {conf.n_timesteps:,} steps in {time.perf_counter() - t0:.0f} s", flush=True)

def picks(indicators:dict)->dict:
    "The best configuration's gin text by each indicator, printing each one's best scores."
    out = {}
    for label, ind in indicators.items():
        s = hyperopt_scores(QLearningEpisodic, indicator=ind)
        print(f"\nsearch scores by {label} ({ind}: mean final value), best first:\n{s.sort_values('score').head(5).to_string()}", flush=True)
        out[label] = get_best_agent_gin_config(QLearningEpisodic, indicator=ind)
        print(f"picked by {label}:\n{out[label].strip()}", flush=True)
    return out

def evaluate(work:Path, label:str, gin:str, seeds:int, client)->pd.DataFrame:
    "Run `QLearningEpisodic` configured by `gin` on the benchmark's seeds `0..seeds-1`; its final values, the agent named after `label`."
    config.set_experiments_folder(str(work / f'eval_{label}'))
    bench = ColosseumDefaultBenchmark[BENCHMARK.upper()].get_benchmark()
    insts = [i for i in instantiate_and_get_exp_instances_from_agents_and_benchmarks([({QLearningEpisodic: gin}, bench)]) if i.seed < seeds]
    t0 = time.perf_counter()
    run_instances(insts, client=client, progress=False, desc=label)
    print(f"{label}: {len(insts)} runs in {time.perf_counter() - t0:.0f} s", flush=True)
    df = load_results(work / f'eval_{label}')
    df['agent'] = df['agent'].astype(str).str.replace('QLearningEpisodic', f'QLearningEpisodic (search: {label})')
    return df

def table(df:pd.DataFrame, indicators:dict)->pd.DataFrame:
    "Per agent: the mean final value of each indicator over its runs."
    cols = {label: final_values(df, ind).groupby('agent', observed=True)['value'].mean() for label, ind in indicators.items()}
    return pd.DataFrame(cols).round(3)

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--cores', type=int, default=2)
    p.add_argument('--configs', type=int, default=20, help='configurations sampled')
    p.add_argument('--mdps', type=int, default=2, help='MDPs sampled per family')
    p.add_argument('--search-seeds', type=int, default=1, help='seeds of each search run')
    p.add_argument('--steps', type=int, default=100_000, help='steps of each search run')
    p.add_argument('--seeds', type=int, default=None, help="benchmark seeds of each pick (default: every complete seed shipped)")
    p.add_argument('--work', default=None, help='work folder (kept; reuse it to resume)')
    a = p.parse_args(argv)
    work = Path(a.work or tempfile.mkdtemp(prefix='hyperopt_behaviour_')).resolve(); work.mkdir(parents=True, exist_ok=True)
    shipped = load_published(BENCHMARK, curves=False)
    seeds = a.seeds or int(shipped.seed.max()) + 1
    indicators = {'behaviour regret': config.BEHAVIOUR_INDICATOR, "Colosseum's indicator": config.COLOSSEUM_INDICATOR}
    conf = HyperOptConfig(seed=42, n_timesteps=a.steps, max_interaction_time_s=600, n_samples_agents=a.configs, n_samples_mdps=a.mdps,
                          log_every=a.steps // 10, n_seeds=a.search_seeds)
    print(f"work folder {work}; search {a.configs} configurations x 7 families x {a.mdps} MDPs x {a.search_seeds} seeds x {a.steps:,} steps; "
          f"benchmark {BENCHMARK}, seeds 0-{seeds - 1}", flush=True)
    with local_client(a.cores) as client:
        search(work, conf, client)
        ginned = picks(indicators)
        same = len(set(ginned.values())) == 1
        if same: print("both indicators pick the same configuration: it runs once", flush=True)
        evals = [evaluate(work, 'both' if same else 'behaviour' if k == 'behaviour regret' else 'colosseum', g, seeds, client)
                 for k, g in list(ginned.items())[:1 if same else 2]]
    base = load_published(BENCHMARK)
    base = base[base.seed < seeds]
    df = pd.concat([base] + evals, ignore_index=True)
    print(f"\nmean final values over the {BENCHMARK} runs (20 MDPs x {seeds} seeds; lower is better):\n{table(df, indicators).to_string()}", flush=True)
    ranking, _ = rank_agents(df)
    print(f"\nIQM score of the behaviour regret (1 - per-step regret), 95% intervals:\n{ranking.to_string()}", flush=True)

if __name__ == '__main__':
    sys.exit(main())
