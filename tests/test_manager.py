"""Bad input to `ExperimentManager`: each a clear error naming the problem, and nothing in `output_dir` lost."""
import base64, hashlib, os, pickle, sys
from pathlib import Path
import numpy as np
import pytest
from colosseum_nb.manager import ExperimentManager, ManagerFileError, _HEADER
from colosseum_nb.agent.base import BaseAgent
from colosseum_nb.agent.agents.episodic import QLearningEpisodic, RandomAgentEpisodic
from colosseum_nb.mdp.deep_sea import DeepSeaEpisodic

ENV = (DeepSeaEpisodic, dict(size=4))


def snapshot(folder):
    "Relative path -> sha256 of every file under `folder`."
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(Path(folder).rglob('*')) if p.is_file()}


@pytest.fixture
def out(tmp_path):
    "An output folder that already holds a user's file and another manager's saved data."
    (tmp_path / 'notes.txt').write_text('keep me\n')
    m = ExperimentManager(QLearningEpisodic, ENV, fit_budget=200, n_fit=2, seed=0, output_dir=tmp_path, outdir_id_style=None)
    m.fit(); m.save()
    return tmp_path


def manager(out, **kw):
    return ExperimentManager(**{**dict(agent_class=QLearningEpisodic, train_env=ENV, fit_budget=200, n_fit=2, seed=0, output_dir=out), **kw})


class NoProtocol:
    "A class with an agent-like name but none of the protocol."
    def act(self, s): return 0


class Abstract(BaseAgent):
    "Declares the protocol but implements nothing."


@pytest.mark.parametrize('cls, msg', [(NoProtocol, 'does not follow the agent protocol'), (Abstract, 'is abstract'),
                                      (QLearningEpisodic(0, __import__('colosseum_nb.utils').utils.make_mdp_spec(DeepSeaEpisodic(seed=0, size=4)), 10), 'must be an agent class'),
                                      ('QLearningEpisodic', 'must be an agent class')])
def test_agent_without_protocol(out, cls, msg):
    before = snapshot(out)
    with pytest.raises(ValueError, match=msg): manager(out, agent_class=cls)
    assert snapshot(out) == before


@pytest.mark.parametrize('env, msg', [((DeepSeaEpisodic, dict(size=1)), r'DeepSeaEpisodic\(\*\*'),
                                      ((DeepSeaEpisodic, dict(size=4, colour='red')), 'does not build'),
                                      ((dict, dict(a=1)), 'not a tabular MDP'),
                                      ((DeepSeaEpisodic, [('size', 4)]), 'must be a dict'),
                                      (DeepSeaEpisodic, r'must be a tuple \(mdp_class, kwargs\)'),
                                      ((None, None), 'is not an MDP class')])
def test_mdp_that_does_not_build(out, env, msg):
    before = snapshot(out)
    with pytest.raises(ValueError, match=msg): manager(out, train_env=env)
    with pytest.raises(ValueError, match=msg.replace('train_env', 'eval_env')): manager(out, eval_env=env)
    assert snapshot(out) == before


def test_setting_mismatch(out):
    from colosseum_nb.mdp.river_swim import RiverSwimContinuous
    with pytest.raises(ValueError, match='episodic'): manager(out, train_env=(RiverSwimContinuous, dict(size=4)))


@pytest.mark.parametrize('budget', [0, -5, 2.5, '100', True, float('nan'), None])
def test_bad_budget(out, budget):
    before = snapshot(out)
    if budget is not None:
        with pytest.raises(ValueError, match='positive integer'): manager(out, fit_budget=budget)
    m = manager(out, fit_budget=None)
    with pytest.raises(ValueError, match='positive integer' if budget is not None else 'no budget'): m.fit(budget)
    assert m.get_agent_instances() == [] and m.n_fit_calls == 0
    assert snapshot(out) == before


def test_integral_float_budget(out):
    m = manager(out, fit_budget=2e2); m.fit(); m.fit(1e2)
    assert m.get_writer_data().groupby('fit').steps.last().tolist() == [299, 299]


@pytest.mark.parametrize('kw, msg', [(dict(n_fit=0), 'n_fit'), (dict(parallelization='gpu'), 'parallelization'), (dict(max_workers=0), 'max_workers'),
                                     (dict(mp_context='teleport'), 'mp_context'), (dict(outdir_id_style='random'), 'outdir_id_style'),
                                     (dict(seed=-1), 'seed'), (dict(init_kwargs=dict(c_1=-1.0)), 'c_1'), (dict(init_kwargs=dict(colour=1)), 'colour'),
                                     (dict(init_kwargs_per_instance=[{}]), 'init_kwargs_per_instance'), (dict(eval_kwargs=dict(method='guess')), 'method'),
                                     (dict(fit_kwargs=dict(log_evry=10)), 'log_evry')])
def test_bad_arguments(out, kw, msg):
    before = snapshot(out)
    with pytest.raises(ValueError, match=msg): manager(out, **kw)
    assert snapshot(out) == before


def test_missing_save_file(out):
    before = snapshot(out)
    with pytest.raises(ManagerFileError, match='no such manager file'): ExperimentManager.load(out / 'nope' / 'manager_obj.pickle')
    with pytest.raises(ManagerFileError, match='no such manager file'): ExperimentManager.load(out / 'nope')
    assert snapshot(out) == before


class Evil:
    def __reduce__(self): return (os.system, ('touch PWNED',))


@pytest.mark.parametrize('content, msg', [
    (b'keep me\n', 'not a colosseum_nb manager file'),
    (pickle.dumps({'a': 1}), 'cannot read it|not a colosseum_nb manager file'),
    (f"{_HEADER} manager\n".encode() + base64.b64encode(pickle.dumps({'unique_id': Evil()})), 'refused to load the global'),
    (f"{_HEADER} manager\n".encode() + base64.b64encode(pickle.dumps(np.zeros(3))), 'refused to load the global'),
    (f"{_HEADER} manager\n@@not base64@@".encode(), 'refused'),
    (f"{_HEADER} manager\n".encode() + base64.b64encode(pickle.dumps({'unique_id': 'x'})), 'invalid manager data'),
    (f"{_HEADER} agent\n".encode() + base64.b64encode(pickle.dumps({})), 'not a colosseum_nb manager file')])
def test_foreign_save_file(out, tmp_path, content, msg, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = out / 'foreign' / 'manager_obj.pickle'; f.parent.mkdir(); f.write_bytes(content)
    before = snapshot(out)
    with pytest.raises(ManagerFileError, match=msg): ExperimentManager.load(f)
    assert snapshot(out) == before and not (tmp_path / 'PWNED').exists()


def test_tampered_agent_handler(out):
    m = ExperimentManager.load(out / 'manager_data')
    h = out / 'manager_data' / 'agent_handlers' / 'idx_1.pickle'
    h.write_text(f"{_HEADER} agent\n" + base64.b64encode(pickle.dumps({'cls': 'RandomAgentEpisodic'})).decode())
    before = snapshot(out)
    with pytest.raises(ManagerFileError, match='not a QLearningEpisodic'): ExperimentManager.load(out / 'manager_data')
    assert snapshot(out) == before and m.n_fit_calls == 1


def test_never_overwrites_another_manager(out):
    before = snapshot(out)
    m = manager(out, outdir_id_style=None); m.fit()
    with pytest.raises(FileExistsError, match='belongs to another manager'): m.save()
    assert snapshot(out) == before
    m.clear_output_dir()  # it wrote nothing, so it deletes nothing
    assert snapshot(out) == before


def test_default_output_dirs_differ(out):
    a, b = manager(out), manager(out)
    assert a.output_dir != b.output_dir and a.output_dir.parent == out / 'manager_data'


def test_unregistered_class_is_not_saved(out):
    class MyAgent(RandomAgentEpisodic): pass
    m = manager(out, agent_class=MyAgent, init_kwargs={}); m.fit()
    with pytest.raises(ValueError, match='register_agent_class'): m.save()
    assert not m.output_dir.exists()


def test_load_roundtrip_continues(out):
    m = ExperimentManager.load(out / 'manager_data')
    ref = ExperimentManager(QLearningEpisodic, ENV, fit_budget=200, n_fit=2, seed=0, output_dir=out / 'ref')
    ref.fit(); ref.fit(); m.fit()
    cols = [c for c in ref.get_writer_data().columns if c != 'steps_per_second']
    assert m.get_writer_data()[cols].equals(ref.get_writer_data()[cols])


def test_optuna_missing_is_a_clear_error(out, monkeypatch):
    monkeypatch.setitem(sys.modules, 'optuna', None)
    m = manager(out)
    with pytest.raises(ImportError, match='needs optuna'): m.optimize_hyperparams(n_trials=1, sampler_method='optuna_default')
    assert len(m.optimize_hyperparams(n_trials=1, timeout=None, sampler_method='random')) == 3


def test_eval_before_fit(out):
    with pytest.raises(ValueError, match='call fit first'): manager(out).eval_agents()


def test_mdp_seed_default_and_distributions_roundtrip(tmp_path):
    from colosseum_nb.mdp.base import beta
    from colosseum_nb.mdp.river_swim import RiverSwimEpisodic
    m = ExperimentManager(QLearningEpisodic, (RiverSwimEpisodic, dict(size=4, make_reward_stochastic=True, sub_optimal_distribution=beta(2.0, 3.0))),
                          fit_budget=300, n_fit=1, seed=0, output_dir=tmp_path)
    assert m.train_env[1]['seed'] == 0
    m.fit(); loaded = ExperimentManager.load(m.save())
    assert loaded.get_writer_data().equals(m.get_writer_data())
    assert loaded.build_eval_env().sparse.R.tolist() == m.build_eval_env().sparse.R.tolist()


def test_spawn_with_a_notebook_class_is_refused(tmp_path, monkeypatch):
    import types
    NotebookAgent = type('NotebookAgent', (RandomAgentEpisodic,), {'__module__': '__main__'})
    monkeypatch.setitem(sys.modules, '__main__', types.ModuleType('__main__'))  # an interactive __main__ has no __file__
    kw = dict(fit_budget=100, output_dir=tmp_path, init_kwargs={}, parallelization='process')
    with pytest.raises(ValueError, match='cannot import it'): ExperimentManager(NotebookAgent, ENV, mp_context='spawn', **kw)
    ExperimentManager(NotebookAgent, ENV, mp_context='fork', **kw)  # fork inherits the class


@pytest.mark.parametrize('parallelization', ['thread', 'process'])
def test_tuned_manager_saves_loads_and_continues_its_fitted_agents(tmp_path, parallelization):
    "optimize_hyperparams changes the manager's init_kwargs; the agents fitted before keep the arguments they were built with."
    m = manager(tmp_path, parallelization=parallelization, max_workers=2)
    m.fit()
    built_with = dict(m.init_kwargs)
    best = m.optimize_hyperparams(n_trials=2, n_fit=1, sampler_method='random')
    assert best != built_with and m.init_kwargs == best
    m.fit(100)                                   # continues the agents fitted with the old arguments
    assert int(m.get_writer_data().steps.max()) == 299
    back = ExperimentManager.load(m.save())
    assert back.init_kwargs == best
    np.testing.assert_array_equal(back.eval_agents(2, verbose=False), m.eval_agents(2, verbose=False))


def test_reads_managers_saved_before_one_snapshot_format(tmp_path):
    "Managers saved at ab8b1bb (before `colosseum_nb.snapshot`; QLearning, DQN in threads, DQN in lockstep) load, evaluate as they did when saved, and fit on."
    import shutil
    from pathlib import Path
    import numpy as np
    from colosseum_nb.manager import ExperimentManager
    pytest.importorskip('torch')
    src = Path(__file__).parent / 'data' / 'managers_ab8b1bb'
    shutil.copytree(src, tmp_path / 'managers')   # the fixtures stay as they are
    found = sorted((tmp_path / 'managers').rglob('manager_obj.pickle'))
    assert len(found) == 3
    kinds = set()
    for p in found:
        m = ExperimentManager.load(p)
        kinds.add((m.agent_name, m.parallelization))
        got, saved = np.asarray(m.eval_agents(n_simulations=3), float), np.load(str(p) + '.eval.npy')
        if m.agent_name.startswith('QLearning'): np.testing.assert_array_equal(got, saved)
        else: np.testing.assert_allclose(got, saved, rtol=1e-5)
        m.fit(50)
        assert m.n_fit_calls >= 2
    assert kinds == {('QLearningEpisodic', 'thread'), ('DQNContinuous', 'thread'), ('DQNContinuous', 'lockstep')}
