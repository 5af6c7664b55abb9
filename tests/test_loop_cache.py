"The compiled interaction loop is cached on disk: a fresh process gets the same results, and the next one loads the loop from the cache."
import os, sys, json, subprocess
from pathlib import Path
import numpy as np
import pandas as pd
import pytest
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop, _numba_loop
from colosseum_nb.agent.agents import AGENTS
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.mdp.river_swim import RiverSwimContinuous, RiverSwimEpisodic

ROOT = Path(__file__).resolve().parent.parent
AGENT_NAMES = ['QLearningContinuous', 'PSRLEpisodic']

CHILD = r'''
import sys, json
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop, _numba_loop
from colosseum_nb.agent.agents import AGENTS
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.mdp.river_swim import RiverSwimContinuous, RiverSwimEpisodic
out = {}
for name in sys.argv[1].split(','):
    cls = AGENTS[name]
    mdp = RiverSwimEpisodic(seed=2, size=6) if cls.is_episodic() else RiverSwimContinuous(seed=2, size=6)
    agent = cls.get_agent_instance_from_parameters(1, 1000, make_mdp_spec(mdp, cls), cls.get_default_parameters())
    loop = MDPLoop(mdp, agent, seed=5); loop.run(1000, 100)
    stats = _numba_loop(agent.numba_agent.fns, cls.is_episodic()).stats
    out[name] = dict(logs=loop.logs.drop(columns='steps_per_second').to_dict('list'), hits=sum(stats.cache_hits.values()),
                     misses=sum(stats.cache_misses.values()), path=stats.cache_path)
print(json.dumps(out))
'''

PRECOMPILE_CHILD = r'''
import sys, json
from colosseum_nb.experiment.agent_mdp_interaction import precompile
from colosseum_nb.experiment.experiment_instances import local_client
with local_client(2) as client: took = precompile(sys.argv[1].split(','), progress=False, client=client)
print(json.dumps(took))
'''

def in_process(name):
    cls = AGENTS[name]
    mdp = RiverSwimEpisodic(seed=2, size=6) if cls.is_episodic() else RiverSwimContinuous(seed=2, size=6)
    agent = cls.get_agent_instance_from_parameters(1, 1000, make_mdp_spec(mdp, cls), cls.get_default_parameters())
    loop = MDPLoop(mdp, agent, seed=5); loop.run(1000, 100)
    return loop.logs.drop(columns='steps_per_second')

def _env(loop_cache):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS='1', COLOSSEUM_NB_LOOP_CACHE=str(loop_cache))
    env.pop('NUMBA_CACHE_DIR', None); env.pop('NUMBA_DISABLE_JIT', None)
    return env

def fresh_process(names, loop_cache):
    r = subprocess.run([sys.executable, '-c', CHILD, ','.join(names)], env=_env(loop_cache), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])

@pytest.mark.timeout(1800)
def test_fresh_processes_match_and_load_from_cache(tmp_path):
    first = fresh_process(AGENT_NAMES, tmp_path)     # an empty loop cache: compiled and written
    second = fresh_process(AGENT_NAMES, tmp_path)    # loaded from the cache
    for name in AGENT_NAMES:
        expected = in_process(name)
        for run in (first, second):
            pd.testing.assert_frame_equal(pd.DataFrame(run[name]['logs'])[list(expected.columns)], expected, check_dtype=False)
        assert first[name]['misses'] == 1 and first[name]['hits'] == 0
        assert second[name]['hits'] == 1 and second[name]['misses'] == 0
        assert Path(second[name]['path']) == tmp_path / '__pycache__'
    assert len(list(tmp_path.glob("_loop_*.py"))) == len(AGENT_NAMES)

@pytest.mark.timeout(1800)
def test_parallel_precompile_fills_the_cache(tmp_path):
    "`precompile` on a dask LocalCluster compiles each loop in a worker; a fresh process then loads every one from the disk cache, with the same results."
    r = subprocess.run([sys.executable, '-c', PRECOMPILE_CHILD, ','.join(AGENT_NAMES)], env=_env(tmp_path), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    took = json.loads(r.stdout.strip().splitlines()[-1])
    assert list(took) == AGENT_NAMES and all(v > 0 for v in took.values())
    assert len(list(tmp_path.glob("_loop_*.py"))) == len(AGENT_NAMES)
    after = fresh_process(AGENT_NAMES, tmp_path)
    for name in AGENT_NAMES:
        assert after[name]['hits'] == 1 and after[name]['misses'] == 0
        pd.testing.assert_frame_equal(pd.DataFrame(after[name]['logs'])[list(in_process(name).columns)], in_process(name), check_dtype=False)

def test_edited_kernel_gets_a_new_module(tmp_path, monkeypatch):
    "A kernel whose source changes gets a new generated module (numba would otherwise reuse machine code with the old kernel linked in)."
    from colosseum_nb.agent.base import _loop_key
    from colosseum_nb.utils import argmax_random_tie
    mod = tmp_path / 'my_kernels.py'
    mod.write_text("import numba\n@numba.njit\ndef best(Q): return 0\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import my_kernels
        k1 = _loop_key('f', 'def f(Q): return best(Q)', dict(best=my_kernels.best))
        mod.write_text("import numba\n@numba.njit\ndef best(Q): return 1\n")
        k2 = _loop_key('f', 'def f(Q): return best(Q)', dict(best=my_kernels.best))
    finally:
        sys.path.remove(str(tmp_path)); sys.modules.pop('my_kernels', None)
    assert k1 is not None and k2 is not None and k1 != k2
    assert _loop_key('f', 'def f(Q): return best(Q)', dict(best=argmax_random_tie)) != k1


USER_AGENT = '''import gin
from collections import namedtuple
import numpy as np
from colosseum_nb.config import kernel
from colosseum_nb.utils import argmax_random_tie, greedy_ties_row, take_flag
from colosseum_nb.agent.base import KernelAgent, NumbaAgent, NumbaAgentFns, no_before_start, no_episode_end_update, terminal_is_episode_end
from colosseum_nb.agent.agents import register_agent_class

UState = namedtuple('UState', 'Q pib changed')

@kernel
def u_select(state, s, h): return argmax_random_tie(state.Q[s])

@kernel
def u_step_update(state, s, a, r, sp, h, terminal):
    state.Q[s, a] += 0.1 * (r + 0.9 * state.Q[sp].max() - state.Q[s, a])
    if greedy_ties_row(state.Q[s], state.pib[s]): state.changed[0] = 1

@kernel
def u_policy(state, pi):
    pi[:] = state.pib
    return take_flag(state.changed)

@register_agent_class
@gin.configurable
class UserQ(KernelAgent):
    @classmethod
    def is_episodic(cls): return False
    def __init__(self, seed, mdp_specs, optimization_horizon):
        super().__init__(seed, mdp_specs, optimization_horizon)
        S, A = self.n_states, self.n_actions
        fns = NumbaAgentFns(no_before_start, u_select, u_step_update, terminal_is_episode_end, no_episode_end_update, u_policy, u_policy)
        self.numba_agent = NumbaAgent(fns, UState(np.ones((S, A)), np.full((S, A), 1.0 / A), np.ones(1, np.int64)))
'''

USER_RUN = r'''
from colosseum_nb.experiment.agent_mdp_interaction import MDPLoop
from colosseum_nb.utils import make_mdp_spec
from colosseum_nb.mdp.river_swim import RiverSwimContinuous
from user_agents_lc import UserQ
mdp = RiverSwimContinuous(seed=0, size=5)
MDPLoop(mdp, UserQ(0, make_mdp_spec(mdp), 500)).run(500, 100)
print('ok')
'''


def test_an_agent_of_a_user_module_leaves_the_shared_kernels_loadable(tmp_path):
    "After an agent whose state is defined in a user's module ran, a process that cannot import that module still runs the built-in agents."
    (tmp_path / 'user_agents_lc.py').write_text(USER_AGENT)
    env = dict(os.environ, NUMBA_NUM_THREADS='1', PYTHONPATH=str(tmp_path))
    r = subprocess.run([sys.executable, '-c', USER_RUN], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and 'ok' in r.stdout, r.stderr[-2000:]
    elsewhere = tmp_path / 'elsewhere'; elsewhere.mkdir()
    env.pop('PYTHONPATH')
    r = subprocess.run([sys.executable, '-c', CHILD, 'QLearningContinuous,PSRLEpisodic'], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert set(json.loads(r.stdout.strip().splitlines()[-1])) == {'QLearningContinuous', 'PSRLEpisodic'}
