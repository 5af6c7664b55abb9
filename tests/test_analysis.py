"Integration tests of `colosseum_nb.analysis` and `colosseum_nb.mdp.pictures`: real runs loaded into the tidy table, tables, statistics against their definitions, analyse, pictures."
import os
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
import shutil
from pathlib import Path
import numpy as np
import pandas as pd
import pytest
import scipy.stats
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt

from colosseum_nb.analysis import (load_results, summary_table, table_to_latex, final_values, aggregate_metrics, probability_of_improvement,
                                   performance_profile, scores_from_results, analyse, synthetic_results, benchmark_folders)
from colosseum_nb.experiment.logs import read_logs
from colosseum_nb.experiment import ExperimentConfig, ExperimentInstance, run_experiment_instances
from colosseum_nb.experiment.agent_mdp_interaction import LOG_COLUMNS
from colosseum_nb.benchmark.benchmark import ColosseumDefaultBenchmark


@pytest.fixture(scope='module')
def real_results(tmp_path_factory):
    "A real benchmark folder: DeepSea and RiverSwim of the episodic quick test, two agents, seeds 0, 1 and 10, 600 steps."
    root = tmp_path_factory.mktemp('real')
    bench = root / 'benchmark_episodic_quick_test'
    (bench / 'mdp_configs').mkdir(parents=True)
    for c in ('DeepSeaEpisodic', 'RiverSwimEpisodic'):
        shutil.copy(ColosseumDefaultBenchmark.EPISODIC_QUICK_TEST.mdp_configs_folder / f'{c}.gin', bench / 'mdp_configs')
    cfg = ExperimentConfig(n_seeds=3, n_steps=600, max_interaction_time_s=60, log_performance_indicators_every=100)
    insts = [ExperimentInstance(seed, c, 'prms_0', str(bench / 'mdp_configs' / f'{c}.gin'), a, 'prms_0', None, str(bench), cfg)
             for seed in (0, 1, 10) for c in ('DeepSeaEpisodic', 'RiverSwimEpisodic') for a in ('QLearningEpisodic', 'RandomAgentEpisodic')]
    run_experiment_instances(insts, show_progress=False)
    return root, bench, insts


def test_real_runs_in_the_tidy_table(real_results):
    root, bench, insts = real_results
    df = load_results(root)
    assert df.groupby(['mdp', 'agent', 'seed'], observed=True).ngroups == len(insts)
    assert sorted(df.seed.unique()) == [0, 1, 10]  # seed 10 is not read as seed 1
    for inst in insts[:4]:
        csv = pd.read_csv(inst.result_path)
        mine = df[(df.mdp_class == inst.mdp_class_name) & (df.agent_class == inst.agent_class_name) & (df.seed == inst.seed)]
        np.testing.assert_array_equal(mine[list(LOG_COLUMNS)].to_numpy(float), csv[list(LOG_COLUMNS)].to_numpy(float))
    assert not df.time_cut.any()
    assert df.diameter.notna().all() and df.value_norm.notna().all()
    assert set(df.setting) == {'episodic'}


def test_summary_table_of_real_runs(real_results):
    root, _, _ = real_results
    df = load_results(root)
    t = summary_table(df, 'normalized_cumulative_regret')
    fv = final_values(df, 'normalized_cumulative_regret')
    for mdp in ('prms_0-DeepSeaEpisodic', 'prms_0-RiverSwimEpisodic'):
        v = fv[(fv.mdp == mdp) & (fv.agent == 'prms_0-QLearningEpisodic')].value
        assert t.loc[mdp, ('prms_0-QLearningEpisodic', 'mean')] == pytest.approx(v.mean())
        assert t.loc[mdp, ('prms_0-QLearningEpisodic', 'n_seeds')] == 3
    assert t.loc['Average', ('prms_0-RandomAgentEpisodic', 'n_seeds')] == 6
    assert '12 runs' in table_to_latex(t)


def test_parser_equals_python_float(tmp_path):
    rng = np.random.default_rng(5)
    n = len(LOG_COLUMNS)
    vals = np.round(rng.normal(0, 1, (300, n)) * 10.0 ** rng.integers(-4, 8, (300, n)), 5)
    vals[:, list(LOG_COLUMNS).index('steps')] = np.arange(300) * 100.0  # a log's steps never go down (the reader checks)
    header = ','.join(LOG_COLUMNS)
    p = tmp_path / 'seed0_logs.csv'
    p.write_text(header + '\n' + '\n'.join(','.join(repr(float(v)) for v in row) for row in vals) + '\n')
    cols, out, counts, _ = read_logs([p])[0]
    assert counts.tolist() == [300]
    expected = np.array([[float(x) for x in line.split(',')] for line in p.read_text().splitlines()[1:]])
    np.testing.assert_array_equal(out, expected)


def test_time_cuts_and_colosseum_files(tmp_path):
    bench = synthetic_results(tmp_path / 'r', seeds=(0, 3, 11))
    d = bench / 'logs' / 'prms_0-RiverSwimEpisodic____prms_0-PSRLEpisodic'
    (d / 'time_exceeded.txt').write_text(f'last training step at (321) for {d}/seed3_logs.csv\n')  # Colosseum's file
    df = load_results(tmp_path / 'r', hardness=False)
    cut = df[df.time_cut].drop_duplicates(['mdp', 'agent', 'seed'])
    assert sorted(zip(cut.mdp_class, cut.agent_class, cut.seed, cut.last_training_step)) == [
        ('DeepSeaEpisodic', 'QLearningEpisodic', 11, 250), ('RiverSwimEpisodic', 'PSRLEpisodic', 3, 321)]


def test_several_benchmarks_and_hyperopt_layout(tmp_path):
    synthetic_results(tmp_path / 'hyperopt' / 'hyperopt_episodic')
    synthetic_results(tmp_path / 'hyperopt' / 'hyperopt_continuous', agents=('QLearningEpisodic',))
    assert [p.parent.name for p in benchmark_folders(tmp_path / 'hyperopt')] == ['hyperopt_continuous', 'hyperopt_episodic']
    df = load_results(tmp_path / 'hyperopt', hardness=False)
    assert df.groupby('benchmark', observed=True).size().to_dict() == {
        'hyperopt_continuous/benchmark_episodic_quick_test': 36, 'hyperopt_episodic/benchmark_episodic_quick_test': 72}


def test_bad_folders(tmp_path):
    with pytest.raises(ValueError, match='no such results folder'): load_results(tmp_path / 'missing')
    d = tmp_path / 'b' / 'logs' / 'prms_0-DeepSeaEpisodic____prms_0-PSRLEpisodic'; d.mkdir(parents=True)
    (d / 'seed0_logs.csv').write_text('no,header,here\n1,2,3\n')
    with pytest.raises(ValueError, match="seed0_logs.csv: not a log file"): load_results(tmp_path / 'b', hardness=False)


def _boot_reference(x, reps, seed, conf=0.95):
    "Stratified percentile bootstrap of the IQM, one task at a time (as rliable's StratifiedBootstrap)."
    r = np.random.RandomState(seed); R, T = x.shape
    v = [scipy.stats.trim_mean(np.stack([x[r.randint(R, size=R), t] for t in range(T)], 1), 0.25, axis=None) for _ in range(reps)]
    return np.percentile(v, [100 * (1 - conf) / 2, 100 * (1 + conf) / 2])


def test_aggregate_metrics_match_definitions():
    rng = np.random.default_rng(0)
    x = rng.beta(3, 2, (12, 9))
    am = aggregate_metrics({'a': x}, reps=3000, seed=1).set_index('metric')
    assert am.loc['IQM', 'estimate'] == pytest.approx(scipy.stats.trim_mean(x, 0.25, axis=None), abs=1e-12)
    assert am.loc['Median', 'estimate'] == pytest.approx(np.median(np.mean(x, axis=0)))
    assert am.loc['Mean', 'estimate'] == pytest.approx(np.mean(np.mean(x, axis=0)))
    assert am.loc['OptimalityGap', 'estimate'] == pytest.approx(1 - np.mean(np.minimum(x, 1)))
    lo, hi = _boot_reference(x, 3000, 2)
    w = hi - lo
    assert abs(am.loc['IQM', 'lower'] - lo) < 0.1 * w and abs(am.loc['IQM', 'upper'] - hi) < 0.1 * w
    assert (am.n_runs == 108).all()


def test_probability_of_improvement_and_profiles():
    rng = np.random.default_rng(3)
    x, y = rng.normal(1, 1, (10, 4)), rng.normal(0, 1, (8, 4))
    ref = np.mean([scipy.stats.mannwhitneyu(x[:, t], y[:, t], alternative='greater').statistic / 80 for t in range(4)])
    p, lo, hi = probability_of_improvement(x, y, reps=500)
    assert p == pytest.approx(ref) and lo <= p <= hi
    with pytest.raises(ValueError, match='same tasks'): probability_of_improvement(x, y[:, :3])
    prof = performance_profile({'x': x}, [0.0, 1.0], reps=100)['x']
    np.testing.assert_allclose(prof[0], [(x > 0).mean(), (x > 1).mean()])


def test_scores_from_results_are_one_minus_per_step_regret(tmp_path):
    synthetic_results(tmp_path / 'r')
    df = load_results(tmp_path / 'r', hardness=False)
    scores, tasks = scores_from_results(df)
    fv = final_values(df)
    v = fv[(fv.agent == 'prms_0-PSRLEpisodic') & (fv.mdp == tasks[0])].sort_values('seed').value.to_numpy()
    np.testing.assert_allclose(scores['prms_0-PSRLEpisodic'][:, 0], 1 - v)


def test_analyse_writes_tables_and_figures(real_results, tmp_path):
    root, _, _ = real_results
    paths = analyse(root, tmp_path / 'out', reps=200)
    names = {p.name for p in paths}
    assert {'summary_normalized_cumulative_regret.csv', 'summary_normalized_cumulative_regret.tex', 'curves_cumulative_regret.png',
            'curves_cumulative_regret.pdf', 'hardness_space.pdf', 'aggregate_metrics.tex', 'probability_of_improvement.csv'} <= names
    assert all(p.stat().st_size > 0 for p in paths)
    assert not list(root.glob('**/analysis'))  # nothing written into the results folder when out_dir is given


def test_analyse_tables_exact_with_thinned_curves(tmp_path):
    "The analysis reads a few columns and rows per run, yet its tables equal those of the whole tidy table; the run summary reads final rows only."
    from colosseum_nb.cli import summary_table as run_summary
    synthetic_results(tmp_path / 'r', n_logs=40, seeds=(0, 1, 2, 3))
    analyse(tmp_path / 'r', tmp_path / 'out', reps=50, hardness=False, curve_points=7)
    full = load_results(tmp_path / 'r', hardness=False)
    for ind in ('normalized_cumulative_regret', 'cumulative_regret'):
        mine = pd.read_csv(tmp_path / 'out' / 'benchmark_episodic_quick_test' / f'summary_{ind}.csv', header=[0, 1], index_col=0)
        ref = pd.read_csv(pd.io.common.StringIO(summary_table(full, ind).to_csv()), header=[0, 1], index_col=0)
        pd.testing.assert_frame_equal(mine, ref)
    few = load_results(tmp_path / 'r', hardness=False, max_rows=7)
    assert few.groupby(['mdp', 'agent', 'seed'], observed=True).size().max() <= 8 and set(few.steps) < set(full.steps)
    assert 'n_logs' not in pd.read_csv(tmp_path / 'out' / 'benchmark_episodic_quick_test' / 'runs.csv')
    t = run_summary(tmp_path / 'r' / 'benchmark_episodic_quick_test')
    assert t.loc['prms_0-DeepSeaEpisodic', 'QLearningEpisodic'].startswith(f"{summary_table(full, 'behaviour_normalized_cumulative_regret').loc['prms_0-DeepSeaEpisodic', ('prms_0-QLearningEpisodic', 'mean')]:.3f}")


def test_pictures_of_every_family():
    from colosseum_nb.mdp import (RiverSwimEpisodic, DeepSeaContinuous, FrozenLakeEpisodic, SimpleGridContinuous, MiniGridEmptyContinuous,
                                  MiniGridRoomsEpisodic, TaxiContinuous)
    from colosseum_nb.mdp.pictures import draw_grid_mdp, grid_layout, draw_transition_graph
    mdps = [RiverSwimEpisodic(seed=1, size=5), DeepSeaContinuous(seed=1, size=5), FrozenLakeEpisodic(seed=2, size=4, p_frozen=0.8),
            SimpleGridContinuous(seed=0, size=4), MiniGridEmptyContinuous(seed=3, size=4), MiniGridRoomsEpisodic(seed=0, room_size=2),
            TaxiContinuous(seed=0, size=5)]
    for m in mdps:
        lay = grid_layout(m)
        if not m.__class__.__name__.startswith('Taxi'): assert len(lay.cell_of) == m.n_states
        ax = draw_grid_mdp(m); plt.close(ax.figure)
    ax = draw_transition_graph(mdps[0]); plt.close(ax.figure)
    with pytest.raises(ValueError, match='draws at most'): draw_transition_graph(mdps[-1])


def test_cli_analyse(tmp_path, capsys):
    from colosseum_nb.cli import main
    synthetic_results(tmp_path / 'r')
    assert main(['analyse', str(tmp_path / 'r'), '--out', str(tmp_path / 'out'), '--reps', '50', '--no-hardness']) == 0
    assert (tmp_path / 'out' / 'benchmark_episodic_quick_test' / 'summary_normalized_cumulative_regret.tex').exists()
    assert not (tmp_path / 'out' / 'benchmark_episodic_quick_test' / 'hardness_space.png').exists()
    assert main(['analyse', str(tmp_path / 'missing')]) == 2
    assert 'no such results folder' in capsys.readouterr().err


def _final_scores_from_logs(bench, indicator):
    "agent -> (seeds, MDPs) array of `1 - ` the final per-step `indicator` of each run, read straight from the logs, and the MDPs in order."
    runs = {}
    for d in sorted((bench / 'logs').iterdir()):
        mdp, agent = d.name.split('____')
        for f in d.glob('seed*_logs.csv'):
            last = pd.read_csv(f).iloc[-1]
            runs.setdefault(agent, {}).setdefault(mdp, {})[int(f.name[4:-9])] = 1 - last[indicator] / (last.steps + 1)
    mdps = sorted({m for r in runs.values() for m in r})
    return {a: np.array([[r[m][s] for m in mdps] for s in sorted(r[mdps[0]])]) for a, r in runs.items()}, mdps


def test_run_analysis_ranks_by_the_behaviour_regret(tmp_path, capsys):
    "`colosseum_nb run` on two continuous quick-test MDPs, two agents, two seeds: the aggregate statistics it writes are those of the behaviour regret, recomputed here from the logs; in reference-compatible mode (`analyse`) Colosseum's indicator's."
    from colosseum_nb.cli import main
    from colosseum_nb import config
    bench = tmp_path / 'quick'
    (bench / 'mdp_configs').mkdir(parents=True)
    for c in ('RiverSwimContinuous', 'DeepSeaContinuous'):
        shutil.copy(ColosseumDefaultBenchmark.CONTINUOUS_QUICK_TEST.mdp_configs_folder / f'{c}.gin', bench / 'mdp_configs')
    assert main(['run', '--benchmark', str(bench), '--results', str(tmp_path / 'res'), '--steps', '600', '--seeds', '2', '--log-every', '100',
                 '--cores', '1', '--no-progress', '--agents', 'QLearningContinuous', 'PSRLContinuous']) == 0
    out = capsys.readouterr().out
    am = pd.read_csv(tmp_path / 'res' / 'analysis' / 'quick' / 'aggregate_metrics.csv')
    assert set(am.indicator) == {'behaviour_normalized_cumulative_regret'}
    scores, mdps = _final_scores_from_logs(tmp_path / 'res' / 'quick', 'behaviour_normalized_cumulative_regret')
    assert set(am.agent) == set(scores) and set(am.n_tasks) == {len(mdps)} == {2}
    for a, x in scores.items():
        assert x.shape == (2, 2)
        est = am[am.agent == a].set_index('metric').estimate
        assert est['IQM'] == pytest.approx(scipy.stats.trim_mean(x.ravel(), 0.25))
        assert est['Median'] == pytest.approx(np.median(x.mean(axis=0)))
        assert est['Mean'] == pytest.approx(x.mean())
        assert est['OptimalityGap'] == pytest.approx(1 - np.minimum(x, 1).mean())
    pw = pd.read_csv(tmp_path / 'res' / 'analysis' / 'quick' / 'probability_of_improvement.csv')
    assert set(pw.indicator) == {'behaviour_normalized_cumulative_regret'}
    x, y = scores[pw.x.iloc[0]], scores[pw.y.iloc[0]]
    poi = np.mean([((x[:, j, None] > y[None, :, j]) + 0.5 * (x[:, j, None] == y[None, :, j])).mean() for j in range(x.shape[1])])
    assert pw.probability.iloc[0] == pytest.approx(poi)
    # the printed summary leads with the behaviour regret and names the best agent by it
    assert "mean ± std over seeds: behaviour regret (of the policy the agent acts with) [Colosseum's normalized_cumulative_regret" in out
    means = {a.removeprefix('prms_0-'): 1 - scores[a].mean() for a in scores}
    avg_best = [l for l in out.splitlines() if l.startswith('Average')][0].split()[-1]
    assert avg_best == min(means, key=means.get)
    # reference-compatible mode: Colosseum's indicator
    with config.reference_compatible():
        analyse(tmp_path / 'res' / 'quick', tmp_path / 'rc', reps=200, hardness=False)
    rc = pd.read_csv(tmp_path / 'rc' / 'aggregate_metrics.csv')
    assert set(rc.indicator) == {'normalized_cumulative_regret'}
    colosseum, _ = _final_scores_from_logs(tmp_path / 'res' / 'quick', 'normalized_cumulative_regret')
    for a, x in colosseum.items():
        assert rc[(rc.agent == a) & (rc.metric == 'IQM')].estimate.iloc[0] == pytest.approx(scipy.stats.trim_mean(x.ravel(), 0.25))
