"""Integration tests of the benchmarking workflow: `colosseum_nb run` and `colosseum_nb hyperopt` in fresh processes, resuming,
refusals that leave a results folder untouched, gin overrides, time-cut runs in the summary, and the code of Colosseum's
tutorial "Scale benchmarking to a cluster" (with `colosseum` renamed to `colosseum_nb`) run as written."""
import os, subprocess, sys, textwrap
from pathlib import Path
import pytest
from test_cli import run_cli, assert_clean_error, make_benchmark

RIVERS = 'prms_0/RiverSwimContinuous.size = 5\nprms_1/RiverSwimContinuous.size = 7\n'
SHORT = ['--steps', '1000', '--seeds', '2', '--log-every', '250', '--cores', '1', '--no-progress']  # one process: numba compiles each agent once


def snapshot(folder):
    "{relative path: bytes} of every file under `folder`."
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(Path(folder).rglob('*')) if p.is_file()}


@pytest.fixture
def rivers(tmp_path):
    return make_benchmark(tmp_path / 'rivers', {'RiverSwimContinuous.gin': RIVERS})


def test_run_summary_and_resume(tmp_path, rivers):
    r = run_cli('run', '--benchmark', rivers, '--results', tmp_path / 'res', *SHORT[:-3], '--cores', '2', cwd=tmp_path)  # with a progress bar, on 2 processes
    assert r.returncode == 0, r.stderr
    assert '16/16' in r.stderr  # the progress bar's last state
    lines = r.stdout.strip().splitlines()
    assert lines[-1].endswith(f"results in: {tmp_path / 'res' / 'rivers'}"), lines[-1]
    agents = ['PSRLContinuous', 'QLearningContinuous', 'RandomAgentContinuous', 'UCRL2Continuous']
    header = next(l for l in lines if l.split() == agents + ['best'])
    rows = lines[lines.index(header) + 1:lines.index(header) + 4]
    assert [row.split()[0] for row in rows] == ['prms_0-RiverSwimContinuous', 'prms_1-RiverSwimContinuous', 'Average']
    assert all(row.count('±') == 8 and row.count('[') == 4 and row.count('(2)') == 4 and row.split()[-1] in agents for row in rows[:2]), rows
    assert rows[2].count('(4)') == 4 and rows[2].split()[-1] in agents, rows[2]
    res = tmp_path / 'res' / 'rivers'
    assert len(list(res.glob('logs/*/seed*_logs.csv'))) == 2 * 4 * 2
    assert sorted(p.name for p in res.iterdir()) == ['agents_configs', 'colosseum_nb_settings.yml', 'experiment_config.yml', 'logs', 'mdp_configs']
    before = snapshot(res)
    r = run_cli('run', '--benchmark', rivers, '--results', tmp_path / 'res', *SHORT, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert snapshot(res) == before  # every run was found done: nothing rewritten


def test_refusals_leave_the_folder_untouched(tmp_path, rivers):
    args = ['run', '--benchmark', rivers, '--results', tmp_path / 'res', '--agents', 'QLearningContinuous', *SHORT]
    assert run_cli(*args, cwd=tmp_path).returncode == 0
    res = tmp_path / 'res' / 'rivers'
    before = snapshot(res)
    longer = [a if a != '1000' else '2000' for a in args]
    assert_clean_error(run_cli(*longer, cwd=tmp_path), 'already holds a different benchmark than rivers', 'n_steps is 1000 there, 2000 here',
                       'nothing there was changed')
    assert_clean_error(run_cli(*args, '--gin', 'prms_0/QLearningContinuous.h_weight=0.5', cwd=tmp_path),
                       'different agent configurations', "'prms_0/QLearningContinuous.h_weight = 0.5' only here")
    (rivers / 'mdp_configs' / 'RiverSwimContinuous.gin').write_text(RIVERS.replace('size = 7', 'size = 8'))
    assert_clean_error(run_cli(*args, cwd=tmp_path), 'mdp_configs/RiverSwimContinuous.gin: prms_1.size is 7 there, 8 here')
    (res / 'experiment_config.yml').write_text('n_seeds: [oops\n')
    before['experiment_config.yml'] = b'n_seeds: [oops\n'
    assert_clean_error(run_cli(*args, cwd=tmp_path), 'experiment_config.yml cannot be read')
    assert snapshot(res) == before


def test_gin_overrides(tmp_path, rivers):
    r = run_cli('run', '--benchmark', rivers, '--results', tmp_path / 'res', '--agents', 'QLearningContinuous', *SHORT,
                '--gin', 'prms_0/QLearningContinuous.h_weight=0.25', '--gin', 'prms_1/RiverSwimContinuous.p_lazy=0.2', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    res = tmp_path / 'res' / 'rivers'
    assert 'prms_0/QLearningContinuous.h_weight = 0.25' in (res / 'agents_configs' / 'QLearningContinuous.gin').read_text()
    assert 'prms_1/RiverSwimContinuous.p_lazy = 0.2' in (res / 'mdp_configs' / 'RiverSwimContinuous.gin').read_text()
    for bad, msg in [('QLearningContinuous.h_weigth=1', "has no parameter 'h_weigth' (did you mean 'h_weight'?)"),
                     ('prms_5/QLearningContinuous.h_weight=1', 'has no configuration prms_5'),
                     ('QLearningEpisodic.c_1=1', 'is not an agent or MDP class of this run'),
                     ('RiverSwimContinuous.size=1', 'size=1'),
                     ('QLearningContinuous.h_weight', 'bad gin override')]:
        assert_clean_error(run_cli('run', '--benchmark', rivers, '--results', tmp_path / 'other', '--agents', 'QLearningContinuous',
                                   *SHORT, '--gin', bad, cwd=tmp_path), msg)
    assert not (tmp_path / 'other').exists()  # refused before anything was written


def test_time_cut_runs_are_reported(tmp_path, rivers):
    r = run_cli('run', '--benchmark', rivers, '--results', tmp_path / 'res', '--agents', 'PSRLContinuous', *SHORT, '--max-time', '0.5',
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert '4 runs were cut by the time budget' in r.stdout
    assert r.stdout.count('2 cut*') == 2


def test_bad_run_arguments(tmp_path, rivers):
    assert_clean_error(run_cli('run', '--benchmark', 'episodic_quick_test', '--agents', 'UCRL2Continuous', cwd=tmp_path), 'applies to episodic_quick_test')
    assert_clean_error(run_cli('run', '--agents', 'QLearningEpisodc', cwd=tmp_path), "unknown agent class 'QLearningEpisodc'")
    assert_clean_error(run_cli('run', '--benchmark', 'continous_ergodic', cwd=tmp_path), "unknown benchmark 'continous_ergodic'")
    assert_clean_error(run_cli('run', '--steps', '0', cwd=tmp_path), "invalid value '0'")
    assert_clean_error(run_cli('run', '--benchmark', rivers, '--hyperparameters', 'selected', '--hyperopt-folder', tmp_path / 'none',
                               '--agents', 'QLearningContinuous', cwd=tmp_path), 'no results of QLearningContinuous')
    assert list(tmp_path.iterdir()) == [rivers]  # nothing written


def test_hyperopt_then_run_selected(tmp_path, rivers):
    r = run_cli('hyperopt', '--agents', 'QLearningContinuous', 'PSRLContinuous', '--steps', '1000', '--mdps', 'RiverSwimContinuous',
                '--hyperopt-folder', tmp_path / 'hp', '--cores', '1', '--no-progress', '--save', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count('selected:\nprms_0/') == 1 and 'selected:\nfrom colosseum' in r.stdout  # PSRL's gin starts with its import line
    assert len(list((tmp_path / 'hp' / 'hyperopt_continuous' / 'logs').glob('*/seed0_logs.csv'))) == 2 * 2 * 2
    latest = tmp_path / 'hp' / 'latest_hyprms' / 'QLearningContinuous.gin'
    assert latest.exists()
    latest.write_text('prms_0/QLearningContinuous.h_weight = 0.3\n')  # a pinned configuration wins
    r = run_cli('run', '--benchmark', rivers, '--agents', 'QLearningContinuous', 'RandomAgentContinuous', '--hyperparameters', 'selected',
                '--hyperopt-folder', tmp_path / 'hp', '--results', tmp_path / 'res', *SHORT, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / 'res' / 'rivers' / 'agents_configs' / 'QLearningContinuous.gin').read_text() == latest.read_text()
    assert (tmp_path / 'res' / 'rivers' / 'agents_configs' / 'RandomAgentContinuous.gin').read_text() == ''


# The tutorial's code, verbatim but for `colosseum` -> `colosseum_nb`, the set-up cell first, then step 1, the cluster jobs
# (here: `run_experiment_instances` on the saved paths), the selection and step 2.
SEED_TUTORIAL = '''
import os

from colosseum_nb import config
from colosseum_nb.agent.agents.episodic import QLearningEpisodic
from colosseum_nb.agent.agents.infinite_horizon import QLearningContinuous
from colosseum_nb.benchmark import ColosseumDefaultBenchmark
from colosseum_nb.benchmark.run import instantiate_and_get_exp_instances_from_agents_and_benchmarks_for_hyperopt
from colosseum_nb.benchmark.run import instantiate_and_get_exp_instances_from_agents_and_benchmarks
from colosseum_nb.experiment.experiment_instances import save_instances_to_folder
from colosseum_nb.hyperopt import SMALL_HYPEROPT_CONF
from colosseum_nb.hyperopt.selection import retrieve_best_agent_config_from_hp_folder
from colosseum_nb.hyperopt.utils import sample_agent_configs_and_benchmarks_for_hyperopt

agent_cls = [QLearningContinuous, QLearningEpisodic]

# Set an experiment name that briefly describes the aim of the experiments
experiments_folder = "experiments" + os.sep + "tabular"
experiment_name = "tutorial"

exp_instances_hpo_folder = config.get_hyperopt_folder() + "experiment_instances"
exp_instances_bench_folder = config.get_experiments_folder() + "experiment_instances"

config.set_experiments_folder(experiments_folder, experiment_name)
config.set_hyperopt_folder(experiments_folder, experiment_name)

# Assume we want to benchmark the following agent classes
agent_cls = [QLearningContinuous, QLearningEpisodic]

# Obtain the MDP configuration files and instantiate them locally
hyperopt_benchmarks = sample_agent_configs_and_benchmarks_for_hyperopt(agent_cls, SMALL_HYPEROPT_CONF)

# Create the corresponding ExperimentInstance objects
hp_exp_instances = instantiate_and_get_exp_instances_from_agents_and_benchmarks_for_hyperopt(
    hyperopt_benchmarks
)

# Pickle the experiment instances
exp_instance_paths = save_instances_to_folder(hp_exp_instances, exp_instances_hpo_folder)

# The cluster jobs
from colosseum_nb.experiment.experiment_instances import run_experiment_instances
run_experiment_instances(exp_instance_paths, n_cores=2, skip_completed=True)

# Obtain the best hyperparameters given the performances stored in the loggings
agents_configs = retrieve_best_agent_config_from_hp_folder(agent_cls)

# Store the episodic and continuous agents configs separately.
agents_configs_episodic = {cl : agents_configs[cl] for cl in agents_configs if cl.is_episodic()}
agents_configs_continuous = {cl : agents_configs[cl] for cl in agents_configs if not cl.is_episodic()}

# Instantiate the benchmark for the different settings
b_cc = ColosseumDefaultBenchmark.CONTINUOUS_COMMUNICATING.get_benchmark()
b_ce = ColosseumDefaultBenchmark.CONTINUOUS_ERGODIC.get_benchmark()
b_ec = ColosseumDefaultBenchmark.EPISODIC_COMMUNICATING.get_benchmark()
b_ee = ColosseumDefaultBenchmark.EPISODIC_ERGODIC.get_benchmark()

# Prepare the input for the ExperimentInstance creator function
agents_and_benchmarks = [
    (agents_configs_continuous, b_cc),
    (agents_configs_continuous, b_ce),
    (agents_configs_episodic, b_ec),
    (agents_configs_episodic, b_ee),
]

# Instantiate the experiment instances (note the different function compared to the hyperoptimzation procedure)
experiment_instances = instantiate_and_get_exp_instances_from_agents_and_benchmarks(agents_and_benchmarks)
experiment_instances_paths = save_instances_to_folder(
    experiment_instances, exp_instances_bench_folder
)

for _, b in hyperopt_benchmarks: print('HPO', b.get_hyperopt_benchmark_log_folder())
for _, b in agents_and_benchmarks: print('BENCH', b.get_experiments_benchmark_log_folder())
print('INSTANCES', len(exp_instance_paths), len(experiment_instances_paths))
'''

SHORTEN = '''
import dataclasses, colosseum_nb.hyperopt as h
h.SMALL_HYPEROPT_CONF = dataclasses.replace(h.SMALL_HYPEROPT_CONF, n_timesteps=1000, log_every=500)  # shorter runs; benchmarks/hyperopt_small.py runs the real one
'''


def test_seed_tutorial_runs_as_written(tmp_path):
    env = dict(os.environ, NUMBA_NUM_THREADS='1')
    r = subprocess.run([sys.executable, '-c', SHORTEN + SEED_TUTORIAL], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    root = os.path.join('experiments', 'tabular')
    assert f"HPO {os.path.join(root, 'hyperopt', 'tutorial', 'hyperopt_episodic')}{os.sep}" in out
    assert f"BENCH {os.path.join(root, 'benchmarking', 'tutorial', 'benchmark_episodic_ergodic')}{os.sep}" in out
    assert 'INSTANCES 56 1600' in out  # 2 agents x 2 configurations x 7 families x 2 MDPs; 4 benchmarks x 20 MDPs x 20 seeds
    assert len(list((tmp_path / 'default_hyperopt' / 'hyperopt_experiments' / 'experiment_instances').glob('*.pkl'))) == 56
    assert len(list((tmp_path / root / 'hyperopt' / 'tutorial').glob('hyperopt_*/logs/*/seed0_logs.csv'))) == 56
    sel = (tmp_path / root / 'benchmarking' / 'tutorial' / 'benchmark_episodic_ergodic' / 'agents_configs' / 'QLearningEpisodic.gin').read_text()
    assert sel.startswith('prms_0/QLearningEpisodic.p=0.05')


@pytest.mark.parametrize('agents,needs', [(['DQNContinuous'], 'torch'), (['SB3PPOContinuous', 'SB3DQNContinuous'], 'stable_baselines3')])
def test_run_deep_agents_by_name(tmp_path, rivers, agents, needs):
    "Deep and Stable-Baselines3 agents run by name from the command line on a non-tabular benchmark, their regrets logged."
    pytest.importorskip(needs)
    r = run_cli('run', '--benchmark', rivers, '--results', tmp_path / 'res', '--agents', *agents, '--emission-map', 'StateInfo',
                '--steps', '300', '--seeds', '1', '--log-every', '100', '--cores', '1', '--no-progress', '--no-analysis', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in agents:
        logs = sorted((tmp_path / 'res').rglob(f'*-{name}/seed0_logs.csv'))
        assert len(logs) == 2, (name, logs)   # one per MDP
        text = logs[0].read_text().splitlines()
        assert 'behaviour_cumulative_regret' in text[0] and len(text) == 4   # header and three logs
        assert name in r.stdout
