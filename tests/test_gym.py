"""The gymnasium adapter as users meet it: the package imports without gymnasium (only `colosseum_nb.gym` needs it, and
says how to install it), and the registered ids work through `gymnasium.make` with a time limit."""
import importlib.util, subprocess, sys, textwrap
import numpy as np
import pytest

NO_GYM = textwrap.dedent('''
    import sys, importlib, pkgutil
    sys.modules['gymnasium'] = None          # as if gymnasium were not installed
    class _Hide:   # as if torch were not installed (a `None` in sys.modules would confuse scipy, which looks there for torch)
        def find_spec(self, name, path=None, target=None):
            if name.split('.')[0] == 'torch': raise ModuleNotFoundError(f"No module named {name!r}")
    if 'no-torch' in sys.argv: sys.meta_path.insert(0, _Hide())
    import colosseum_nb
    def _unwalked(name): print('extra', name, '| its subpackages could not be listed:', repr(sys.exc_info()[1]))   # a package that fails to import hides its modules
    names = [m.name for m in pkgutil.walk_packages(colosseum_nb.__path__, 'colosseum_nb.', onerror=_unwalked)
             if m.name not in ('colosseum_nb.gym', 'colosseum_nb.__main__') and '_loop_cache' not in m.name]
    for n in names:
        try: importlib.import_module(n); print('imported', n)
        except ImportError as e: print('extra', n, '|', e)
    try: import colosseum_nb.gym
    except ImportError as e: print('ImportError:', e)
''')

DEEP_MODULES = ({f'colosseum_nb.agent.{m}' for m in ('dqn', 'boot_dqn', 'actor_critic', 'actor_critic_rnn', 'lockstep', 'lockstep_dqn', 'lockstep_ac',
                                                      'device', 'device_dqn', 'device_ac')} | {'colosseum_nb.experiment.device'})

def _import_all(*args)->tuple:
    "Import every module of the package in a fresh process without gymnasium (and `args`); (imported, {module: ImportError message})."
    out = subprocess.run([sys.executable, '-c', NO_GYM, *args], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "ImportError: colosseum_nb.gym needs gymnasium" in out.stdout and "pip install -e '.[gym]'" in out.stdout
    extra = dict(l[len('extra '):].split(' | ', 1) for l in lines if l.startswith('extra '))
    return {l.split()[1] for l in lines if l.startswith('imported ')}, extra

def _has_torch()->bool:
    "Whether torch is installed here (the dependency floors have no extras: no torch)."
    try: return importlib.util.find_spec('torch') is not None
    except ImportError: return False

def _check_imports(imported:set, extra:dict, torch:bool):
    "Every module imports but the deep ones where there is no `torch`, and those say how to install the `deep` extra."
    needs_torch = set() if torch else DEEP_MODULES
    assert set(extra) == needs_torch, f"modules that did not import (torch {'present' if torch else 'absent'}): {extra}"
    assert all("pip install -e '.[deep]'" in msg for msg in extra.values()), extra
    assert len(imported) > 50 and {'colosseum_nb.cli', 'colosseum_nb.manager', 'colosseum_nb.benchmark.run', 'colosseum_nb.experiment.lockstep',
                                    'colosseum_nb.agent.non_tabular', 'colosseum_nb.agent.sb3', 'colosseum_nb.validators'} <= imported
    if torch: assert DEEP_MODULES <= imported

# As installed here: with torch every module imports, the deep agents' too; on the dependency floors (no extras, so no torch)
# every module that does not need torch imports (the test used to fail there, importing the deep modules as if torch were
# always present), and a module outside `DEEP_MODULES` that imports torch fails it.
def test_package_imports_without_gymnasium():
    _check_imports(*_import_all(), torch=_has_torch())

# The floors where torch is installed: torch hidden from the process.
def test_package_imports_without_torch():
    _check_imports(*_import_all('no-torch'), torch=False)

def test_make_with_time_limit_truncates_continuous():
    gymnasium = pytest.importorskip('gymnasium')
    import colosseum_nb.gym  # registers the ids
    env = gymnasium.make('colosseum_nb/RiverSwimContinuous-v0', size=5, emission_map='StateInfo', max_episode_steps=4)
    obs, info = env.reset(seed=0)
    flags = [env.step(env.action_space.sample())[2:4] for _ in range(4)]
    assert flags == [(False, False)] * 3 + [(False, True)]
    assert obs.dtype == np.float32 and obs.shape == (1,)

# A missing or misspelt MDP parameter gets one plain error naming it, whichever door the user comes through. (Gin wraps a
# constructor's error in a proxy class that gymnasium's `make` cannot rebuild: it used to answer with a TypeError about
# `ExceptionProxy.__init__` instead.)
MISSING = ('FrozenLakeEpisodic', dict(size=4), TypeError, "missing required parameter(s) ['p_frozen']")
UNKNOWN = ('RiverSwimContinuous', dict(sizee=5), ValueError, "unknown parameter(s) ['sizee'] (did you mean 'size'?); valid: [")

def _gym():
    gymnasium = pytest.importorskip('gymnasium')
    import colosseum_nb.gym  # registers the ids
    return gymnasium, colosseum_nb.gym

@pytest.mark.parametrize('name, kwargs, err, msg', [MISSING, UNKNOWN])
def test_gymnasium_make_names_the_bad_parameter(name, kwargs, err, msg):
    gymnasium, _ = _gym()
    with pytest.raises(err) as e: gymnasium.make(f'colosseum_nb/{name}-v0', **kwargs)
    assert msg in str(e.value) and 'ExceptionProxy' not in str(e.value)

@pytest.mark.parametrize('mode', ['vector_entry_point', 'sync'])
@pytest.mark.parametrize('name, kwargs, err, msg', [MISSING, UNKNOWN])
def test_gymnasium_make_vec_names_the_bad_parameter(name, kwargs, err, msg, mode):
    gymnasium, _ = _gym()
    with pytest.raises(err) as e: gymnasium.make_vec(f'colosseum_nb/{name}-v0', num_envs=2, vectorization_mode=mode, **kwargs)
    assert msg in str(e.value)

@pytest.mark.parametrize('name, kwargs, err, msg', [MISSING, UNKNOWN])
def test_make_env_and_make_vector_env_name_the_bad_parameter(name, kwargs, err, msg):
    _, g = _gym()
    for make in (g.make_env, lambda n, **kw: g.make_vector_env(n, num_envs=2, **kw)):
        with pytest.raises(err) as e: make(name, **kwargs)
        assert msg in str(e.value)

def test_mdp_class_names_the_bad_parameter():
    from colosseum_nb.mdp import FrozenLakeEpisodic, RiverSwimContinuous
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'p_frozen'"): FrozenLakeEpisodic(seed=0, size=4)
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['sise'\]"): RiverSwimContinuous(seed=0, size=5, sise=5)
    with pytest.raises(ValueError) as e: RiverSwimContinuous(seed=0, sizee=5)   # the misspelt name is named, not the `size` it misspells as missing
    assert "unknown parameter(s) ['sizee'] (did you mean 'size'?)" in str(e.value) and 'missing' not in str(e.value)
