"""The baselines' results shipped with the package (`colosseum_nb.analysis.published`): they load, they are what their
record says, they fit the size budget, and sampled runs reproduce exactly at the current commit."""
import json, re
import numpy as np
import pandas as pd
import pytest
from colosseum_nb.analysis.published import (PUBLISHED_FOLDER, CURVE_POINTS, CURVE_COLUMNS, published_benchmarks, load_published,
                                             published_summary, reproduce_published_run)

SHIPPED = published_benchmarks()
pytestmark = pytest.mark.skipif(not SHIPPED, reason='no shipped results in this checkout')


def test_shipped_size_budget():
    size = sum(p.stat().st_size for p in PUBLISHED_FOLDER.rglob('*') if p.is_file())
    assert size <= 20 * 2 ** 20, f"the shipped results take {size / 2 ** 20:.1f} MiB, over the 20 MiB budget"


@pytest.mark.parametrize('bench', SHIPPED)
def test_shipped_tables_match_their_record(bench):
    meta = json.loads((PUBLISHED_FOLDER / bench / 'meta.json').read_text())
    fin = load_published(bench, curves=False, complete_seeds=False)
    cur = load_published(bench, complete_seeds=False)
    runs = fin.groupby('agent', observed=True).size()
    for agent, rec in meta['agents'].items():
        assert runs[agent] == rec['runs']
        seeds = fin[fin.agent == agent].groupby('seed').mdp.nunique()
        assert sorted(seeds[seeds == meta['n_mdps']].index) == rec['complete_seeds']
    assert (fin.steps == meta['n_steps'] - 1).all(), "every shipped run is whole (its last logged step is the last step)"
    per_run = cur.groupby(['mdp', 'agent', 'seed'], observed=True).steps
    assert per_run.size().max() <= CURVE_POINTS and (per_run.max() == meta['n_steps'] - 1).all()
    last = cur.loc[per_run.idxmax()].sort_values(['agent', 'mdp', 'seed'])
    exact = fin.sort_values(['agent', 'mdp', 'seed'])
    for c in CURVE_COLUMNS:  # the curves end on the exact final values (to their 6 shipped digits)
        np.testing.assert_allclose(last[c].to_numpy(), exact[c].to_numpy(), rtol=1e-5, atol=1e-9)
    assert set(fin.setting) == {'episodic' if 'episodic' in bench else 'continuous'}
    assert not fin.mdp_parameters.isna().any(), "every run's MDP has its parameters"
    whole = load_published(bench, curves=False)   # by default, the complete seeds only
    for agent, rec in meta['agents'].items():
        assert sorted(whole[whole.agent == agent].seed.unique()) == rec['complete_seeds']


def test_summary_lists_every_shipped_agent():
    s = published_summary()
    assert set(s.benchmark) == set(SHIPPED)
    assert (s.runs > 0).all() and s.package_version.notna().all() and (s.made_by != '').all()


def _size(params):
    m = re.search(r'size=(\d+)', params)
    return int(m[1]) if m else 10 ** 9


def _sampled_runs():
    "One run per shipped benchmark, PSRL and Q-learning in turn, each on the benchmark's smallest DeepSea (cheap to run again)."
    out = []
    for k, bench in enumerate(SHIPPED):
        fin = load_published(bench, curves=False)
        fin = fin[fin.mdp_class.astype(str).str.startswith('DeepSea')]
        for kind in (('PSRL', 'QLearning')[k % 2],):
            f = fin[fin.agent_class.astype(str).str.startswith(kind)]
            if f.empty: continue
            row = f.assign(size=f.mdp_parameters.astype(str).map(_size)).sort_values(['size', 'seed']).iloc[0]
            out.append((bench, str(row.mdp), str(row.agent), int(row.seed)))
    return out


@pytest.mark.parametrize('bench,mdp,agent,seed', _sampled_runs() if SHIPPED else [])
def test_shipped_run_reproduces(bench, mdp, agent, seed):
    check = reproduce_published_run(bench, mdp, agent, seed)
    final, curve = check[check.kind == 'final'], check[check.kind == 'curve']
    assert final.max_abs.max() == 0.0, final.sort_values('max_abs').tail(3)
    assert curve.max_rel.max() < 1e-5, curve.sort_values('max_rel').tail(3)
