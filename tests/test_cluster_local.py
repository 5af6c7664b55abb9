"""Integration tests of `run_experiment_instances` on a real dask `LocalCluster`: a worker process killed mid-run, a
rerun that resumes, a corrupt results file detected and redone, a run that raises, kernels compiled once per worker."""
import os, signal
from pathlib import Path
import pandas as pd
import pytest
from colosseum_nb.experiment import ExperimentConfig, ExperimentInstance, save_instances_to_folder
from colosseum_nb.experiment.experiment_instances import ExperimentRunsFailed, local_client, run_experiment_instances
from colosseum_nb.experiment.logs import results_file_problem
from cluster_faults import SLOW, table, run_and_kill_midway

pytestmark = pytest.mark.timeout(600)
CFG = ExperimentConfig(n_seeds=1, n_steps=3000, max_interaction_time_s=600, log_performance_indicators_every=500)


def inst(seed, folder, agent='QLearningEpisodic', cfg=CFG, size=5):
    return ExperimentInstance(seed, 'RiverSwimEpisodic', 'prms_0', None, agent, 'prms_0', None, str(folder), cfg,
                              mdp_gin_text=f'prms_0/RiverSwimEpisodic.size = {size}')


@pytest.fixture(scope='module')
def client():
    with local_client(2) as c: yield c


def test_same_logs_as_in_process_and_resume(client, tmp_path):
    files = save_instances_to_folder([inst(s, tmp_path / 'dask') for s in range(6)], tmp_path / 'instances')
    s = run_experiment_instances(files, client=client, show_progress=False)
    assert (len(s.done), len(s.skipped), s.failed) == (6, 0, {})
    here = run_experiment_instances([inst(k, tmp_path / 'here') for k in range(6)], n_cores=1, show_progress=False)
    assert [table(p) for p in s] == [table(p) for p in here]
    # a rerun skips everything; a deleted log is redone, with the same content
    before = s[3].read_text(); s[3].unlink()
    again = run_experiment_instances(files, client=client, show_progress=False)
    assert (len(again.done), len(again.skipped)) == (1, 5) and again.done == [s[3]]
    assert table(s[3]) == table(Path(tmp_path / 'here') / s[3].relative_to(tmp_path / 'dask'))
    assert list(again) == list(s)


def test_corrupt_file_moved_aside_and_redone(client, tmp_path):
    insts = [inst(s, tmp_path / 'r') for s in range(3)]
    s = run_experiment_instances(insts, client=client, show_progress=False)
    good = s[0].read_text()
    lines = good.splitlines(keepends=True)
    s[0].write_text(''.join(lines[:-1]))                       # a required step (n_steps - 1) missing
    s[1].write_text(good.replace(',', ';'))                     # no 'steps' column
    s[2].write_text(''.join(lines[:1]))                         # the header only
    for p in s: assert results_file_problem(p, CFG) is not None
    redo = run_experiment_instances(insts, client=client, show_progress=False, corrupt_folder=tmp_path / 'aside')
    assert sorted(redo.done) == sorted(s) and not redo.skipped
    assert sorted(why for _, why, _ in redo.moved_aside) == ["1 required step(s) missing, e.g. [2999]", "no data rows (the header only)",
                                                             f"not a log file (its header has no 'steps' column: {good.splitlines()[0].replace(',', ';')[:60]!r})"]
    assert (tmp_path / 'aside' / f'_0_{s[0].name}').read_text() == ''.join(lines[:-1])   # kept, not deleted
    assert table(s[0]) == pd.read_csv(pd.io.common.StringIO(good)).drop(columns='steps_per_second').to_csv(index=False)
    assert all(results_file_problem(p, CFG) is None for p in s)


def test_failing_instance_reported_and_others_complete(client, tmp_path):
    bad = ExperimentInstance(0, 'RiverSwimEpisodic', 'prms_0', None, 'QLearningEpisodic', 'prms_0', None, str(tmp_path / 'bad'), CFG,
                             mdp_gin_text='prms_0/RiverSwimEpisodic.size = -3')
    good = [inst(s, tmp_path / 'good') for s in range(3)]
    with pytest.raises(ExperimentRunsFailed) as e:
        run_experiment_instances([good[0], bad, good[1], tmp_path / 'no_such.pkl', good[2]], client=client, show_progress=False)
    s = e.value.summary
    assert len(s.done) == 3 and all(p.exists() for p in s.done)
    assert set(s.failed) == {str(bad.result_path), str(tmp_path / 'no_such.pkl')}
    assert 'RiverSwimEpisodic' in s.failed[str(bad.result_path)] and 'cannot read' in s.failed[str(tmp_path / 'no_such.pkl')]
    assert s.paths[1] is None and s.paths[3] is None and s.paths[0] == good[0].result_path
    assert '2 of 5 runs failed' in str(e.value)


def test_kernels_compiled_once_per_worker(client, tmp_path):
    insts = [inst(s, tmp_path / 'k', agent=a) for a in ('QLearningEpisodic', 'RandomAgentEpisodic') for s in range(8)]
    s = run_experiment_instances(insts, client=client, show_progress=False)
    assert len(s.done) == 16

    def n_loop_compilations():
        from colosseum_nb.agent.base import _COMPILED  # every interaction loop this process compiled or loaded from the disk cache
        return sum(len(f.signatures) for f in _COMPILED.values())
    per_worker = client.run(n_loop_compilations)
    # each worker compiled the interaction loop at most once per agent class, not once per instance
    assert all(1 <= n <= 2 for n in per_worker.values()), per_worker


def test_killed_worker_loses_nothing(client, tmp_path):
    insts = [inst(s, tmp_path / 'kill', cfg=SLOW, size=8) for s in range(6)]
    victim = next(iter(client.run(os.getpid).values()))
    s = run_and_kill_midway(insts, client, lambda: os.kill(victim, signal.SIGKILL),
                            [inst(k, tmp_path / 'here', cfg=SLOW, size=8) for k in range(6)])
    assert s.retried, "the killed worker's run should have been started again elsewhere"


CUSTOM_AGENT = '''import gin
from colosseum_nb.agent.agents.episodic import QLearningEpisodic
from colosseum_nb.experiment.experiment_instances import register_agent_class

@register_agent_class
@gin.configurable
class MyQLearningEpisodic(QLearningEpisodic):
    "A custom agent class, registered when its module is imported."
'''


def test_custom_class_imported_on_workers(tmp_path, monkeypatch):
    (tmp_path / 'my_agents_i7.py').write_text(CUSTOM_AGENT)
    insts = [inst(s, tmp_path / 'custom', agent='MyQLearningEpisodic') for s in range(2)]
    monkeypatch.syspath_prepend(str(tmp_path))   # spawned workers start with this process's import path
    with local_client(2) as c:
        s = run_experiment_instances(insts, client=c, show_progress=False, raise_on_failure=False)
        assert len(s.failed) == 2 and all('unknown agent class' in e for e in s.failed.values()), s.failed
        s = run_experiment_instances(insts, client=c, show_progress=False, raise_on_failure=False, import_modules=['no_such_module_i7'])
        assert all("cannot import 'no_such_module_i7'" in e for e in s.failed.values()) and not s.retried, s
        s = run_experiment_instances(insts, client=c, show_progress=False, import_modules=['my_agents_i7'])
    assert (len(s.done), s.failed) == (2, {})
    # the subclass learns exactly like its parent
    parent = run_experiment_instances([inst(k, tmp_path / 'parent') for k in range(2)], n_cores=1, show_progress=False)
    assert [table(p) for p in s] == [table(p) for p in parent]
