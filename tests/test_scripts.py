"""Scripts as users write them: no `if __name__ == "__main__":` guard, or piped on stdin, on the default parallel path
(`run_experiment_instances(instances)` with no client), with agent classes the script defines itself; the result
settings of `colosseum_nb.config` travelling to every kind of worker; and the cluster tutorial's code run as a plain script."""
import json, os, subprocess, sys, textwrap
from pathlib import Path
import pytest
from colosseum_nb import config
from colosseum_nb.experiment import ExperimentConfig, ExperimentInstance
import colosseum_nb.experiment.workers as workers   # where local_cluster looks up main_reruns_in_workers
from colosseum_nb.experiment.experiment_instances import run_experiment_instances, local_client
from cluster_faults import table

pytestmark = pytest.mark.timeout(900)
ROOT = Path(__file__).resolve().parent.parent
CFG = ExperimentConfig(n_seeds=1, n_steps=3000, max_interaction_time_s=120, log_performance_indicators_every=500)

# The head of the scripts: built-in agents, and a numba agent the script defines and registers itself.
HEAD = '''
import json, sys
import numpy as np, gin
from colosseum_nb import config
from colosseum_nb.config import kernel
from colosseum_nb.agent.base import KernelAgent, NumbaAgent, NumbaAgentFns, no_before_start, no_episode_end_update, terminal_is_episode_end
from colosseum_nb.experiment import ExperimentConfig, ExperimentInstance
from colosseum_nb.experiment.experiment_instances import run_experiment_instances, register_agent_class
print("TOP LEVEL OF THE SCRIPT")
if len(sys.argv) > 1 and sys.argv[1] == 'rc': config.set_reference_compatible(True)
cfg = ExperimentConfig(n_seeds=1, n_steps=3000, max_interaction_time_s=120, log_performance_indicators_every=500)
def inst(seed, agent, folder):
    return ExperimentInstance(seed, 'RiverSwimContinuous', 'prms_0', None, agent, 'prms_0', None, folder, cfg,
                              mdp_gin_text='prms_0/RiverSwimContinuous.size = 5',
                              agent_gin_text='prms_0/ScriptQ.epsilon = 0.3' if agent == 'ScriptQ' else None)
'''

CUSTOM = '''
@kernel
def _select(st, s, h):
    Q, prm = st[0], st[1]
    if np.random.random() < prm[0]: return np.int64(np.random.randint(Q.shape[1]))
    return np.int64(np.argmax(Q[s]))

@kernel
def _update(st, s, a, r, sp, h, terminal):
    Q, prm = st[0], st[1]
    Q[s, a] += prm[1] * (r + prm[2] * Q[sp].max() - Q[s, a])

@kernel
def _policy(st, pi):
    Q = st[0]
    for s in range(Q.shape[0]):
        b = np.argmax(Q[s]); pi[s, :] = 0.0; pi[s, b] = 1.0
    return True

@register_agent_class
@gin.configurable
class ScriptQ(KernelAgent):
    "Epsilon-greedy Q-learning defined in the script."
    @classmethod
    def is_episodic(cls): return False
    def __init__(self, seed, mdp_specs, optimization_horizon, epsilon=0.1, lr=0.2, gamma=0.9):
        super().__init__(seed, mdp_specs, optimization_horizon, epsilon=epsilon, lr=lr, gamma=gamma)
        st = (np.zeros((self.n_states, self.n_actions)), np.array([epsilon, lr, gamma]))
        self.numba_agent = NumbaAgent(NumbaAgentFns(no_before_start, _select, _update, terminal_is_episode_end, no_episode_end_update, _policy), st)
'''

RUN = '''
agents = {agents}
par = run_experiment_instances([inst(s, a, 'par') for s in range(3) for a in agents], show_progress=False)
here = run_experiment_instances([inst(s, a, 'here') for s in range(3) for a in agents], n_cores=1, show_progress=False)
print(json.dumps(dict(done=len(par.done), par=[str(p) for p in par], here=[str(p) for p in here])))
'''


def run_script(text, cwd, *args, stdin=False):
    env = dict(os.environ, NUMBA_NUM_THREADS='1')
    cmd = [sys.executable, '-'] if stdin else [sys.executable, str(cwd / 'job.py')]
    if not stdin: (cwd / 'job.py').write_text(text)
    r = subprocess.run(cmd + list(args), cwd=cwd, env=env, input=text if stdin else None, capture_output=True, text=True, timeout=800)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.count("TOP LEVEL OF THE SCRIPT") == 1, r.stdout   # the workers never run the script again
    assert 'Traceback' not in r.stderr, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def same_logs(out, cwd):
    return [table(cwd / p) for p in out['par']] == [table(cwd / p) for p in out['here']]


def test_unguarded_script_with_its_own_agent(tmp_path):
    "Built-in agents and an agent class defined and registered in the script, on the default parallel path: identical to in-process runs."
    out = run_script(HEAD + CUSTOM + RUN.format(agents="('ScriptQ', 'QLearningContinuous', 'RandomAgentContinuous')"), tmp_path)
    assert out['done'] == 9
    assert same_logs(out, tmp_path)


def test_unguarded_script_reference_compatible(tmp_path):
    "A script that switches reference compatibility on: its parallel runs are those of in-process runs with the switch, not the default ones."
    text = HEAD + RUN.format(agents="('QLearningContinuous',)")
    (tmp_path / 'rc').mkdir(); (tmp_path / 'default').mkdir()
    rc, default = run_script(text, tmp_path / 'rc', 'rc'), run_script(text, tmp_path / 'default')
    assert same_logs(rc, tmp_path / 'rc') and same_logs(default, tmp_path / 'default')
    assert [table(tmp_path / 'rc' / p) for p in rc['par']] != [table(tmp_path / 'default' / p) for p in default['par']]
    assert 'reference_compatible: true' in (tmp_path / 'rc' / 'par' / 'colosseum_nb_settings.yml').read_text()


def test_script_piped_on_stdin(tmp_path):
    "The same script piped on stdin (built-in agents: numba cannot cache kernels defined on stdin)."
    out = run_script(HEAD + RUN.format(agents="('QLearningContinuous', 'RandomAgentContinuous')"), tmp_path, stdin=True)
    assert out['done'] == 6 and same_logs(out, tmp_path)


def test_unguarded_script_main_job_and_manager(tmp_path):
    "The benchmark helper of the main job and ExperimentManager.fit (process-parallel) from a plain script."
    text = HEAD + textwrap.dedent('''
        from colosseum_nb.benchmark.run import run_benchmarks, as_benchmark
        from colosseum_nb.agent.agents.infinite_horizon import QLearningContinuous, RandomAgentContinuous
        from colosseum_nb.manager import ExperimentManager
        from colosseum_nb.agent.agents.episodic import QLearningEpisodic
        from colosseum_nb.mdp.deep_sea import DeepSeaEpisodic
        import pathlib
        (pathlib.Path('rivers') / 'mdp_configs').mkdir(parents=True)
        (pathlib.Path('rivers') / 'mdp_configs' / 'RiverSwimContinuous.gin').write_text('prms_0/RiverSwimContinuous.size = 5\\nprms_1/RiverSwimContinuous.size = 6\\n')
        bench = as_benchmark('rivers').with_experiment_config(n_seeds=2, n_steps=2000, log_performance_indicators_every=500)
        config.set_experiments_folder('results')
        folders = run_benchmarks([({QLearningContinuous: None, RandomAgentContinuous: None}, bench)], progress=False)
        m = ExperimentManager(QLearningEpisodic, (DeepSeaEpisodic, dict(size=4)), fit_budget=2000, n_fit=2, seed=0, parallelization='process')
        m.fit()
        print(json.dumps(dict(logs=sorted(str(p) for p in pathlib.Path(folders[0]).rglob('seed*_logs.csv')), fits=len(m.get_writer_data()))))
    ''')
    (tmp_path / 'job.py').write_text(text)
    r = subprocess.run([sys.executable, 'job.py'], cwd=tmp_path, env=dict(os.environ, NUMBA_NUM_THREADS='1'), capture_output=True, text=True, timeout=800)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.count("TOP LEVEL OF THE SCRIPT") == 1, r.stdout
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(out['logs']) == 2 * 2 * 2 and out['fits'] > 0


def insts(folder, rc=False):
    with config.reference_compatible(rc):
        return [ExperimentInstance(s, 'RiverSwimContinuous', 'prms_0', None, 'QLearningContinuous', 'prms_0', None, str(folder), CFG,
                                   mdp_gin_text='prms_0/RiverSwimContinuous.size = 6') for s in range(3)]


def test_settings_travel_to_local_workers_and_clients(tmp_path):
    "Instances made with the switch on: the default parallel path and a client's workers give the in-process results with the switch."
    here = run_experiment_instances(insts(tmp_path / 'here', rc=True), n_cores=1, show_progress=False)
    par = run_experiment_instances(insts(tmp_path / 'par', rc=True), n_cores=2, show_progress=False)
    with local_client(2) as client: on_client = run_experiment_instances(insts(tmp_path / 'client', rc=True), client=client, show_progress=False)
    default = run_experiment_instances(insts(tmp_path / 'default'), n_cores=2, show_progress=False)
    assert [table(p) for p in par] == [table(p) for p in here] == [table(p) for p in on_client]
    assert [table(p) for p in default] != [table(p) for p in here]
    with pytest.raises(ValueError, match='reference_compatible is True there, False here'):
        run_experiment_instances(insts(tmp_path / 'par'), n_cores=2, show_progress=False)


def test_no_worker_processes_for_a_plain_script_names_the_fix(monkeypatch):
    "Where fresh worker processes cannot be started (Windows), a plain script gets an error naming the fixes, not dask's traceback."
    monkeypatch.setattr(workers, 'main_reruns_in_workers', lambda: True)
    monkeypatch.setattr(sys, 'platform', 'win32')
    with pytest.raises(RuntimeError, match="if __name__ == '__main__'.*n_cores=1.*client"):
        run_experiment_instances(insts('/tmp/never') * 2, n_cores=2, show_progress=False)


def tutorial_script(nb):
    "The code cells of a notebook as a plain script (hidden cells left out)."
    cells = json.loads(Path(nb).read_text())['cells']
    code = [''.join(c['source']) for c in cells if c['cell_type'] == 'code']
    return '\n\n'.join(c for c in code if not c.lstrip().startswith('#| hide'))


def test_cluster_tutorial_as_a_plain_script(tmp_path):
    "The cluster tutorial's code, unchanged, as `python tutorial.py` (small settings under IN_TEST; SLURM when one runs)."
    (tmp_path / 'tutorial.py').write_text(tutorial_script(ROOT / 'nbs' / 'tutorials' / 'scale_benchmarking_to_a_cluster.ipynb'))
    env = dict(os.environ, IN_TEST='1', NUMBA_NUM_THREADS='1', MPLBACKEND='Agg')
    r = subprocess.run([sys.executable, 'tutorial.py'], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=800)
    assert r.returncode == 0, r.stderr[-3000:]
