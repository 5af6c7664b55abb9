"""The cluster routes of the command line, run in fresh processes as a user would: `colosseum_nb run --scheduler` on a
running dask scheduler, `colosseum_nb run --slurm` on SLURM worker jobs, and SLURM job arrays over a folder of pickled
instances (`colosseum_nb instances sbatch/run`) with a task cancelled mid-run. The SLURM tests need a running SLURM
(`tools/slurm_localhost.sh start`); in CI (CI=true) they fail without one, elsewhere they are skipped with the reason."""
import os, re, subprocess, time
from pathlib import Path
import pytest
import distributed
from colosseum_nb import config
from colosseum_nb.experiment import ExperimentConfig, ExperimentInstance, save_instances_to_folder
from colosseum_nb.experiment.experiment_instances import run_experiment_instances, WORKER_ENV
from cluster_faults import table
from test_cli import run_cli, assert_clean_error

pytestmark = pytest.mark.timeout(900)
SMALL = ['--seeds', '1', '--steps', '2000', '--log-every', '500', '--agents', 'QLearningContinuous', 'RandomAgentContinuous', '--no-progress', '--no-analysis']
# runs of a few seconds each, so that a task can be cancelled while it runs
LONG = ExperimentConfig(n_seeds=1, n_steps=6_000_000, max_interaction_time_s=600, log_performance_indicators_every=1_000_000)


def logs_of(folder):
    "Relative path -> log table of every run under a results folder."
    return {p.relative_to(folder).as_posix(): table(p) for p in sorted(Path(folder).rglob('seed*_logs.csv'))}


def test_run_on_a_running_scheduler(tmp_path):
    "`run --scheduler ADDRESS` uses the workers of a scheduler that runs already: the same logs as on one core."
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=':0', env=WORKER_ENV) as cluster:
        r = run_cli('run', '--benchmark', 'continuous_quick_test', '--results', tmp_path / 'sched', '--scheduler', cluster.scheduler_address, *SMALL, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert 'Average' in r.stdout
    here = run_cli('run', '--benchmark', 'continuous_quick_test', '--results', tmp_path / 'here', '--cores', '1', *SMALL, cwd=tmp_path)
    assert here.returncode == 0, here.stderr[-3000:]
    sched, local = logs_of(tmp_path / 'sched'), logs_of(tmp_path / 'here')
    assert len(sched) == 7 * 2 and sched == local


def test_bad_cluster_options(tmp_path):
    assert_clean_error(run_cli('run', '--scheduler', 'tcp://127.0.0.1:9', '--slurm', cwd=tmp_path), 'give either --slurm or --scheduler')
    assert_clean_error(run_cli('run', '--partition', 'debug', cwd=tmp_path), '--partition only apply with --slurm')
    r = run_cli('instances', 'run', tmp_path / 'nothing', cwd=tmp_path)
    assert_clean_error(r, 'no such folder of experiment instances')


def test_main_job_on_slurm_worker_jobs(slurm_ok, tmp_path):
    "`run --slurm --jobs 2`: the runs go to two SLURM worker jobs; the summary is printed; the logs are those of a run on one core."
    r = run_cli('run', '--benchmark', 'continuous_quick_test', '--results', tmp_path / 'slurm', '--slurm', '--jobs', '2', '--partition', 'debug',
                '--memory', '1GB', '--walltime', '00:20:00', '--interface', 'lo', '--reference-compatible', *SMALL, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert 'Average' in r.stdout and 'benchmark(s) in' in r.stdout
    job_outputs = list((tmp_path / 'slurm' / 'slurm_logs').glob('*.err'))
    assert job_outputs, "no SLURM worker job wrote its output"
    assert any('Starting worker' in p.read_text() or 'Start worker' in p.read_text() for p in job_outputs)
    here = run_cli('run', '--benchmark', 'continuous_quick_test', '--results', tmp_path / 'here', '--cores', '1', '--reference-compatible', *SMALL, cwd=tmp_path)
    assert here.returncode == 0, here.stderr[-3000:]
    on_slurm = logs_of(tmp_path / 'slurm')
    assert len(on_slurm) == 7 * 2 and on_slurm == logs_of(tmp_path / 'here')
    assert 'reference_compatible: true' in (tmp_path / 'slurm' / 'benchmark_continuous_quick_test' / 'colosseum_nb_settings.yml').read_text()


def squeue(job):
    "{task index: state} of the array's tasks still known to SLURM."
    out = subprocess.run(['squeue', '-h', '-r', '-j', job, '-o', '%i %T'], capture_output=True, text=True).stdout
    return {int(i.rsplit('_', 1)[1]): s for i, s in (l.split() for l in out.splitlines()) if '_' in i and i.rsplit('_', 1)[1].isdigit()}


def test_job_array_with_a_task_cancelled_mid_run(slurm_ok, tmp_path):
    "An array of 3 tasks, task 1 cancelled while it runs; `instances run FOLDER` then completes exactly what is missing: every log complete and identical to in-process."
    with config.reference_compatible():   # the instances' settings travel to the array's tasks
        insts = [ExperimentInstance(s, 'RiverSwimContinuous', 'prms_0', None, 'QLearningContinuous', 'prms_0', None, str(tmp_path / 'array'), LONG,
                                    mdp_gin_text='prms_0/RiverSwimContinuous.size = 6') for s in range(6)]
    files = [Path(f) for f in save_instances_to_folder(insts, tmp_path / 'instances')]
    r = run_cli('instances', 'sbatch', tmp_path / 'instances', '--tasks', '3', '--time', '00:15:00', '--mem', '1G', '--partition', 'debug', '--submit', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    job = re.search(r'submitted: job (\d+)', r.stdout)[1]
    task1 = [i for f, i in sorted(zip(files, insts))][1::3]     # task 1's instances: every third file from the second
    deadline = time.time() + 300
    while time.time() < deadline and not task1[0].result_path.exists(): time.sleep(0.05)
    assert task1[0].result_path.exists(), "task 1 wrote no log in time"
    subprocess.run(['scancel', f'{job}_1'], check=True)          # cancelled in the middle of its second run
    while time.time() < deadline and squeue(job): time.sleep(0.5)
    assert not squeue(job), squeue(job)
    missing = [i for i in insts if not i.result_path.exists()]
    assert missing == task1[1:], [str(i.result_path) for i in missing]
    r = run_cli('instances', 'run', tmp_path / 'instances', '--cores', '1', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert f'6 runs, {len(missing)} done, {6 - len(missing)} skipped as complete, 0 failed' in r.stdout, r.stdout
    here = run_experiment_instances([ExperimentInstance(**{**i.__dict__, 'result_folder': str(tmp_path / 'here')}) for i in insts], n_cores=1, show_progress=False)
    assert [table(i.result_path) for i in insts] == [table(p) for p in here]
    again = run_cli('instances', 'run', tmp_path / 'instances', cwd=tmp_path)
    assert again.returncode == 0 and '0 done, 6 skipped as complete' in again.stdout, again.stdout
