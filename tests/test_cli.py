"""Integration tests of the `colosseum_nb` command line, run in fresh processes as a user would."""
import os, shutil, subprocess, sys
from pathlib import Path
import pytest

FAMILIES = ['DeepSea', 'FrozenLake', 'MiniGridEmpty', 'MiniGridRooms', 'RiverSwim', 'SimpleGrid', 'Taxi']


def _script():
    "The installed console script (next to the interpreter, else on the PATH), or `None`."
    p = Path(sys.executable).parent / 'colosseum_nb'
    return str(p) if p.exists() else shutil.which('colosseum_nb')


def run_cli(*args, cwd, module=False, timeout=600):
    "Run the command line in a fresh process; returns the CompletedProcess."
    script = _script()
    cmd = [sys.executable, '-m', 'colosseum_nb'] if module or script is None else [script]
    env = dict(os.environ, NUMBA_NUM_THREADS=os.environ.get('NUMBA_NUM_THREADS', '1'))
    env.pop('COLOSSEUM_NB_CACHE', None)
    return subprocess.run(cmd + [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def assert_clean_error(r, *fragments):
    "Exit code 2, the fragments in the message, no traceback and nothing on stdout."
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert 'Traceback' not in r.stderr, r.stderr
    for f in fragments: assert f in r.stderr, (f, r.stderr)


def make_benchmark(folder, files):
    "A benchmark folder with `mdp_configs/<name>` files."
    (folder / 'mdp_configs').mkdir(parents=True)
    for name, text in files.items(): (folder / 'mdp_configs' / name).write_text(text)
    return folder


RIVER = 'prms_0/RiverSwimContinuous.size = 5\nprms_1/RiverSwimContinuous.size = 8\nprms_1/RiverSwimContinuous.p_lazy = 0.1\n'


@pytest.mark.parametrize('benchmark,setting,module', [('continuous_quick_test', 'Continuous', False),
                                                      ('episodic_quick_test', 'Episodic', True)])
def test_quick_test_table(tmp_path, benchmark, setting, module):
    r = run_cli('hardness', '--benchmark', benchmark, cwd=tmp_path, module=module)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f'benchmark_{benchmark}, seed 0: 7 MDPs')
    header = lines[1].split()
    assert header[:4] == ['mdp', 'scope', 'n_states', 'n_actions']
    assert header[-4:] == ['diameter', 'value_norm', 'suboptimal_gaps', 'seconds']
    assert ('H' in header) == (setting == 'Episodic')
    rows = lines[2:9]
    assert sorted(l.split()[0] for l in rows) == [f + setting for f in FAMILIES]
    assert lines[9].startswith('total: ') and lines[9].endswith(' s')
    assert list(tmp_path.iterdir()) == []  # nothing written to the working directory


def test_bad_benchmark_name(tmp_path):
    r = run_cli('hardness', '--benchmark', 'continous_ergodic', cwd=tmp_path)
    assert_clean_error(r, "unknown benchmark 'continous_ergodic'", 'continuous_ergodic, continuous_communicating')
    assert r.stdout == ''


def test_bad_arguments(tmp_path):
    assert_clean_error(run_cli('hardness', '--seed', 'x', cwd=tmp_path), "invalid seed 'x'")
    assert_clean_error(run_cli('hardnes', cwd=tmp_path), "invalid choice: 'hardnes'")
    assert_clean_error(run_cli(cwd=tmp_path), 'required')


# A deep agent observes through an emission map: without one, `run` and `hyperopt` refuse it up front, as every other bad
# option, instead of starting and failing each run with gin's wrapped error.
@pytest.mark.parametrize('command', [['run', '--benchmark', 'continuous_quick_test'], ['hyperopt'], ['run', '--emission-map', 'Tabular']])
def test_deep_agent_needs_an_emission_map(tmp_path, command):
    r = run_cli(*command, '--agents', 'DQNContinuous', 'QLearningContinuous', '--results' if command[0] == 'run' else '--hyperopt-folder', tmp_path / 'out', cwd=tmp_path)
    assert_clean_error(r, 'DQNContinuous needs an emission map', 'give --emission-map MAP, MAP one of OneHotEncoding, StateInfo, ImageEncoding')
    assert len(r.stderr.strip().splitlines()) == 1 and 'QLearningContinuous' not in r.stderr and 'Tabular,' not in r.stderr
    assert r.stdout == '' and list(tmp_path.iterdir()) == []   # nothing started


def test_csv_refuses_to_overwrite(tmp_path):
    bench = make_benchmark(tmp_path / 'rivers', {'RiverSwimContinuous.gin': RIVER})
    out = tmp_path / 'h.csv'
    r = run_cli('hardness', '--benchmark', bench, '--csv', out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    first = out.read_text()
    assert first.splitlines()[0].startswith('mdp,scope,n_states,n_actions,communication_class,diameter')
    assert len(first.splitlines()) == 3
    out.write_text('keep me\n')
    r = run_cli('hardness', '--benchmark', bench, '--csv', out, cwd=tmp_path)
    assert_clean_error(r, f'--csv {out}: the file exists; use --force to overwrite it')
    assert r.stdout == ''  # refused before any work
    assert out.read_text() == 'keep me\n'
    r = run_cli('hardness', '--benchmark', bench, '--csv', out, '--force', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    strip = lambda text: [l.rsplit(',', 1)[0] for l in text.splitlines()]  # all but the timing column
    assert strip(out.read_text()) == strip(first)
    assert_clean_error(run_cli('hardness', '--benchmark', bench, '--csv', tmp_path / 'no' / 'h.csv', cwd=tmp_path), 'does not exist')


@pytest.mark.parametrize('files,fragments', [
    ({'RiverSwimContinuous.gin': 'prms_0/RiverSwimContinuous.size = 5\nprms_0/RiverSwimContinuous.sise = 6\n'},
     ['RiverSwimContinuous.gin, line 2', "unknown parameter 'sise'", "did you mean 'size'"]),
    ({'RiverSwimContinuous.gin': 'prms_0/RiverSwimContinuous.size = five\n'},
     ['RiverSwimContinuous.gin, line 1', "bad value 'five' for size"]),
    ({'RiverSwimContinuous.gin': 'prms_0/RiverSwimContinuous.size = 5\nprms_0 RiverSwimContinuous.p_lazy = 0.1\n'},
     ['RiverSwimContinuous.gin, line 2: malformed line']),
    ({'RiverSwimContinuous.gin': 'prms_0/RiverSwimContinous.size = 5\n'},
     ["unknown MDP class 'RiverSwimContinous'", "did you mean 'RiverSwimContinuous'"]),
    ({'RiverSwimContinous.gin': 'prms_0/RiverSwimContinuous.size = 5\n'},
     ['RiverSwimContinous.gin: the file name must be an MDP class']),
    ({'RiverSwimContinuous.gin': 'prms_0/RiverSwimContinuous.size = 1\n'},
     ['RiverSwimContinuous.gin: prms_0: size=1']),
    ({}, ['no <Class>.gin files']),
])
def test_broken_gin_folder(tmp_path, files, fragments):
    bench = make_benchmark(tmp_path / 'broken', files)
    r = run_cli('hardness', '--benchmark', bench, cwd=tmp_path)
    assert_clean_error(r, *fragments)


def test_folder_without_mdp_configs(tmp_path):
    (tmp_path / 'empty').mkdir()
    assert_clean_error(run_cli('hardness', '--benchmark', tmp_path / 'empty', cwd=tmp_path), 'needs an mdp_configs/ folder')
    assert_clean_error(run_cli('hardness', '--benchmark', tmp_path / 'missing', cwd=tmp_path), 'unknown benchmark')


def test_benchmarks_listing(tmp_path):
    r = run_cli('benchmarks', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert 'continuous_communicating' in r.stdout and '500000' in r.stdout


CUSTOM_T45 = '''import gin
from colosseum_nb.agent.agents.infinite_horizon import UCRL2Continuous
from colosseum_nb.agent.agents import register_agent_class

@register_agent_class
@gin.configurable
class MyUCRL2T45(UCRL2Continuous):
    "A custom agent class, registered when its module is imported."
'''


def test_run_compare_with_published_ranks_your_agents(tmp_path, monkeypatch, capsys):
    "`--import-module` and `--compare-with published`: your agents ranked among shipped results (here a tiny shipped benchmark)."
    import pandas as pd
    from colosseum_nb.cli import main
    from colosseum_nb.analysis import published
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, 'path', list(sys.path))
    bench = make_benchmark(tmp_path / 'benchmark_tiny', {'RiverSwimContinuous.gin': RIVER})
    common = ['run', '--benchmark', str(bench), '--steps', '2000', '--seeds', '2', '--log-every', '100', '--cores', '1', '--no-progress', '--no-analysis']
    assert main(common + ['--results', 'shipped_runs', '--agents', 'QLearningContinuous', 'RandomAgentContinuous']) == 0
    published.compact_results(tmp_path / 'shipped_runs' / 'benchmark_tiny', tmp_path / 'data', made_by='test')
    monkeypatch.setattr(published, 'PUBLISHED_FOLDER', tmp_path / 'data')
    (tmp_path / 'my_agents_t45.py').write_text(CUSTOM_T45)
    capsys.readouterr()
    assert main(common + ['--results', 'mine', '--import-module', 'my_agents_t45', '--agents', 'MyUCRL2T45', 'QLearningContinuous',
                          '--compare-with', 'published']) == 0
    out = capsys.readouterr().out
    assert 'benchmark_tiny: ranked among the published baselines' in out, out
    ranking = pd.read_csv('mine/analysis/benchmark_tiny/published_ranking.csv').set_index('agent')
    assert set(ranking.index) == {'prms_0-QLearningContinuous', 'prms_0-RandomAgentContinuous', 'prms_0-MyUCRL2T45', 'prms_0-QLearningContinuous (yours)'}
    # your Q-learning is the shipped one (same seeds, same configuration): the same score
    assert ranking.loc['prms_0-QLearningContinuous (yours)', 'IQM score'] == pytest.approx(ranking.loc['prms_0-QLearningContinuous', 'IQM score'], rel=1e-5)
    assert ranking['rank'].min() == 1 and (ranking.runs == 4).all()
    imp = pd.read_csv('mine/analysis/benchmark_tiny/published_improvement.csv')
    assert set(imp.agent) == {'prms_0-MyUCRL2T45', 'prms_0-QLearningContinuous (yours)'}
    assert set(imp.over) == {'prms_0-QLearningContinuous', 'prms_0-RandomAgentContinuous'}
    # another experiment (other steps) is refused in one line, before any run
    assert main([a if a != '2000' else '1000' for a in common] + ['--results', 'other', '--agents', 'QLearningContinuous', '--compare-with', 'published']) == 2
    err = capsys.readouterr().err
    assert 'benchmark_tiny: its runs could not be compared with the shipped results (n_steps: 1000 yours, 2000 shipped)' in err, err
    assert not list((tmp_path / 'other').glob('**/*_logs.csv'))
