"""Print the IQM of every shipped agent's score on each default benchmark, with its 95% stratified-bootstrap interval.

The score of a run is 1 - its per-step normalised behaviour regret at the end (the headline indicator); the IQM is taken
over the MDPs of the setting and the agent's shipped seeds (`aggregate_metrics`, 2,000 resamples, seed 0), on the MDPs
every agent ran. The runs and complete seeds behind each agent come first (`published_summary()`).

    python benchmarks/published_iqm.py [--reps 2000]
"""
import argparse
import pandas as pd
from colosseum_nb.analysis.published import load_published, published_summary, final_values, scores_from_results, aggregate_metrics, common_tasks

SETTINGS = ('episodic_communicating', 'episodic_ergodic', 'continuous_communicating', 'continuous_ergodic')

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--reps', type=int, default=2000, help='bootstrap samples')
    a = ap.parse_args()
    pd.set_option('display.width', 200)
    s = published_summary()
    print(s[['benchmark', 'agent', 'runs', 'complete_seeds', 'time_cut_runs']].to_string(index=False), '\n')
    for b in SETTINGS:
        fv = common_tasks(final_values(load_published(f'benchmark_{b}', curves=False), 'behaviour_normalized_cumulative_regret'))
        scores, _ = scores_from_results(fv)
        am = aggregate_metrics(scores, metrics=('IQM',), reps=a.reps).sort_values('estimate', ascending=False)
        print(b)
        for r in am.itertuples(): print(f"  {r.agent:<32} {r.estimate:.3f} [{r.lower:.3f}, {r.upper:.3f}]  ({r.n_runs} runs, {r.n_tasks} MDPs)")
        print()

if __name__ == '__main__': main()
