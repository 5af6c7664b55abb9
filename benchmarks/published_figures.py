"""Draw the docs' figures of the continuous-communicating benchmark from the shipped baselines' results, and print their figures.

The figures that `colosseum_nb analyse` writes (`colosseum_nb.analysis.analyse_table`: per-MDP curves, the hardness
space, the aggregate metrics, the performance profiles, the probability of improvement), drawn from
`load_published('continuous_communicating', hardness=True)` (Colosseum's agents of the setting; `--all-agents`: every
shipped agent) with the headline indicator (the behaviour regret) and
saved as reduced PNG copies (a 256-colour palette) under `nbs/tutorials/images/cc_*.png`, where the Benchmarks page and
the Benchmark analysis tutorial show them. Prints the seeds and runs drawn, and the aggregate metrics with their 95%
bootstrap intervals.

    python benchmarks/published_figures.py [--benchmark continuous_communicating] [--out nbs/tutorials/images] [--prefix cc_]
"""
import argparse, sys, tempfile
from pathlib import Path

import pandas as pd
from PIL import Image

from colosseum_nb import config
from colosseum_nb.analysis import analyse_table
from colosseum_nb.analysis.published import load_published
from colosseum_nb.agent.agents import DEFAULT_RUN_AGENTS

FIGURES = ('curves_behaviour_normalized_cumulative_regret', 'hardness_space', 'aggregate_metrics', 'performance_profiles',
           'probability_of_improvement')

def reduced(src:Path, dst:Path, width:int=900):
    "A copy of the PNG `src` at most `width` pixels wide, in a 256-colour palette."
    im = Image.open(src).convert('RGB')
    if im.width > width: im = im.resize((width, round(im.height * width / im.width)), Image.LANCZOS)
    im.quantize(colors=256).save(dst, optimize=True)

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--benchmark', default='continuous_communicating')
    p.add_argument('--out', default=str(Path(__file__).resolve().parents[1] / 'nbs' / 'tutorials' / 'images'))
    p.add_argument('--prefix', default='cc_')
    p.add_argument('--reps', type=int, default=2000, help='bootstrap samples')
    p.add_argument('--all-agents', action='store_true', help="every shipped agent (default: Colosseum's agents of the setting, whose seeds are all shipped)")
    a = p.parse_args(argv)
    df = load_published(a.benchmark, hardness=True)
    if not a.all_agents:
        keep = df.agent_class.astype(str).isin(DEFAULT_RUN_AGENTS)
        df = df[keep].copy()
        for c in ('agent', 'agent_class'):
            if hasattr(df[c], 'cat'): df[c] = df[c].cat.remove_unused_categories()
    seeds = sorted(df.seed.unique())
    print(f"{a.benchmark}: {df.groupby(['mdp', 'agent', 'seed'], observed=True).ngroups} runs, seeds {seeds[0]}-{seeds[-1]}, "
          f"agents {', '.join(sorted(map(str, df.agent.unique())))}, made by {', '.join(sorted(map(str, df.made_by.unique()))) if 'made_by' in df else '?'}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        analyse_table(df, tmp, indicators=[config.BEHAVIOUR_INDICATOR], reps=a.reps)
        am = pd.read_csv(Path(tmp) / 'aggregate_metrics.csv')
        with pd.option_context('display.width', 200): print(am.round(3).to_string(index=False), flush=True)
        out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
        for f in FIGURES:
            reduced(Path(tmp) / f'{f}.png', out / f'{a.prefix}{f}.png')
            print(f"wrote {out.name}/{a.prefix}{f}.png", flush=True)

if __name__ == '__main__':
    sys.exit(main())
