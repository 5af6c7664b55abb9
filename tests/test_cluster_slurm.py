"""Integration tests on a real SLURM (start one on this machine with `tools/slurm_localhost.sh start`): a small benchmark
through `slurm_cluster`, and a worker job cancelled mid-run (`scancel`) with every run still completing, the same logs as
in-process, and the lost job replaced. In CI (env CI=true) they fail when SLURM cannot be used; elsewhere they are
skipped with the reason."""
import os, subprocess, threading, time
import pytest
import distributed
from colosseum_nb.cluster import slurm_cluster
from colosseum_nb.experiment import ExperimentConfig, ExperimentInstance, save_instances_to_folder
from colosseum_nb.experiment.experiment_instances import run_experiment_instances
from cluster_faults import SLOW, table, run_and_kill_midway

pytestmark = pytest.mark.timeout(600)
CFG = ExperimentConfig(n_seeds=1, n_steps=3000, max_interaction_time_s=600, log_performance_indicators_every=500)


def inst(seed, folder, cfg=CFG, mdp='RiverSwimEpisodic', agent='QLearningEpisodic', size=5):
    return ExperimentInstance(seed, mdp, 'prms_0', None, agent, 'prms_0', None, str(folder), cfg,
                              mdp_gin_text=f'prms_0/{mdp}.size = {size}')


@pytest.fixture(scope='class')
def slurm(slurm_ok, tmp_path_factory):
    "A SLURM cluster of 2 worker jobs, closed after the tests of a class (the local node has few cores)."
    logs = tmp_path_factory.mktemp('slurm_logs')
    cluster = slurm_cluster(queue='debug', cores=1, memory='1GB', walltime='00:20:00', jobs=2, log_directory=logs, interface='lo')
    client = distributed.Client(cluster)
    yield cluster, client
    client.close(); cluster.close()


def job_ids(cluster):
    return {j.job_id for j in cluster.workers.values() if getattr(j, 'job_id', None)}


class TestTwoWorkerJobs:
    def test_benchmark_on_slurm_same_as_in_process(self, slurm, tmp_path):
        cluster, client = slurm
        mixed = [inst(s, tmp_path / 'slurm', mdp=m, agent=a) for s in range(2)
                 for m, a in (('RiverSwimEpisodic', 'QLearningEpisodic'), ('DeepSeaEpisodic', 'PSRLEpisodic'), ('RiverSwimEpisodic', 'RandomAgentEpisodic'))]
        files = save_instances_to_folder(mixed, tmp_path / 'instances')
        s = run_experiment_instances(files, client=client, show_progress=False)
        assert (len(s.done), s.failed) == (6, {}), s
        here = run_experiment_instances([inst(i.seed, tmp_path / 'here', mdp=i.mdp_class_name, agent=i.agent_class_name) for i in mixed],
                                        n_cores=1, show_progress=False)
        assert [table(p) for p in s] == [table(p) for p in here]
        again = run_experiment_instances(files, client=client, show_progress=False)
        assert (len(again.done), len(again.skipped)) == (0, 6)


    def test_scancel_worker_job_mid_run(self, slurm, tmp_path):
        cluster, client = slurm
        client.wait_for_workers(2, timeout=300)
        before = job_ids(cluster)
        assert len(before) == 2, before
        insts = [inst(s, tmp_path / 'slurm', cfg=SLOW, size=8) for s in range(6)]
        victim = sorted(before)[0]
        run_and_kill_midway(insts, client, lambda: subprocess.run(['scancel', '--signal=KILL', '--full', victim], check=True),
                            [inst(k, tmp_path / 'here', cfg=SLOW, size=8) for k in range(6)])   # a worker job dies mid-benchmark
        # the adaptive cluster replaced the cancelled job
        deadline = time.time() + 180
        while time.time() < deadline and not (len(client.scheduler_info()['workers']) == 2 and victim not in job_ids(cluster)): time.sleep(1)
        assert victim not in job_ids(cluster) and len(client.scheduler_info()['workers']) == 2, (job_ids(cluster), client.scheduler_info()['workers'])


def test_benchmark_longer_than_the_walltime(slurm_ok, tmp_path):
    "Workers retire before their 1-minute walltime and are replaced: runs keep completing for longer than any job lives."
    cluster = slurm_cluster(queue='debug', cores=1, memory='1GB', walltime='00:01:00', jobs=2, lifetime_margin=40,
                            log_directory=tmp_path / 'logs', interface='lo')
    seen, stop = set(), threading.Event()
    def watch():
        while not stop.wait(0.5): seen.update(job_ids(cluster))
    w = threading.Thread(target=watch, daemon=True); w.start()
    try:
        with distributed.Client(cluster) as client:
            t0, k, summaries = time.time(), 0, []
            while time.time() - t0 < 45 or (len(seen) <= 2 and time.time() - t0 < 300):   # longer than a job lives (workers retire 20 +- 13 s after they start, before the 60-s walltime), and until one was replaced
                batch = [inst(s, tmp_path / 'long', cfg=SLOW, size=8) for s in range(k, k + 4)]; k += 4
                summaries.append(run_experiment_instances(batch, client=client, show_progress=False))
    finally:
        stop.set(); w.join(); cluster.close()
    bad = [s for s in summaries if s.failed or None in s.paths or len(s.done) != len(s.paths)]
    assert not bad, bad
    assert len(seen) > 2, f"the worker jobs were not replaced: {seen}"
    assert all(inst(s, tmp_path / 'long', cfg=SLOW, size=8).result_path.exists() for s in range(k))
