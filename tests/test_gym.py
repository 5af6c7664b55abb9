"""The gymnasium adapter as users meet it: the package imports without gymnasium (only `colosseum_nb.gym` needs it, and
says how to install it), and the registered ids work through `gymnasium.make` with a time limit."""
import subprocess, sys, textwrap
import numpy as np
import pytest

NO_GYM = textwrap.dedent('''
    import sys, importlib, pkgutil
    sys.modules['gymnasium'] = None          # as if gymnasium were not installed
    import colosseum_nb
    names = [m.name for m in pkgutil.walk_packages(colosseum_nb.__path__, 'colosseum_nb.')
             if m.name not in ('colosseum_nb.gym', 'colosseum_nb.__main__') and '_loop_cache' not in m.name]
    for n in names: importlib.import_module(n)
    print(len(names), 'modules imported')
    try: import colosseum_nb.gym
    except ImportError as e: print('ImportError:', e)
''')

def test_package_imports_without_gymnasium():
    out = subprocess.run([sys.executable, '-c', NO_GYM], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert 'modules imported' in out.stdout
    assert "ImportError: colosseum_nb.gym needs gymnasium" in out.stdout and "pip install -e '.[gym]'" in out.stdout

def test_make_with_time_limit_truncates_continuous():
    gymnasium = pytest.importorskip('gymnasium')
    import colosseum_nb.gym  # registers the ids
    env = gymnasium.make('colosseum_nb/RiverSwimContinuous-v0', size=5, emission_map='StateInfo', max_episode_steps=4)
    obs, info = env.reset(seed=0)
    flags = [env.step(env.action_space.sample())[2:4] for _ in range(4)]
    assert flags == [(False, False)] * 3 + [(False, True)]
    assert obs.dtype == np.float32 and obs.shape == (1,)
