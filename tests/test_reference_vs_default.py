"The script behind the reference-vs-default tutorial: both settings into their own folders, one CSV row per run."
import os, sys, subprocess
from pathlib import Path
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'benchmarks'))
import reference_vs_default as rvd
from colosseum_nb.experiment.experiment_instances import folder_settings

def test_quick_plan_both_ways(tmp_path):
    "`--quick --steps 2000`: the three runs per setting, each setting's folder recording it, the CSV naming the setting of every row."
    env = dict(os.environ, NUMBA_NUM_THREADS='1')
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'reference_vs_default.py'), str(tmp_path / 'runs'), '--quick', '--steps', '2000',
                        '--cores', '1', '--no-hardness', '--out', str(tmp_path / 'rvd')], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    df = pd.read_csv(tmp_path / 'rvd_regrets.csv')
    assert sorted(df.setting) == ['default'] * 3 + ['reference'] * 3
    assert set(df.mdp) == set(rvd.QUICK_PLAN[0][3]) and (df.steps == 2000).all() and not df.time_cut.any()
    for name in rvd.SETTINGS:
        (folder,) = (tmp_path / 'runs' / name).iterdir()
        assert folder_settings(folder) == rvd.settings_of(name)
    d, ref = (df[df.setting == s].set_index('mdp').regret for s in rvd.SETTINGS)
    assert (d != ref.loc[d.index]).any()  # the switch changed Q-learning's runs

def test_bad_plan_parts():
    "A setting or an MDP the script does not know is refused by name."
    with pytest.raises(ValueError, match="setting='paper'"): rvd.settings_of('paper')
    with pytest.raises(ValueError, match='mdps: prms_9-RiverSwimContinuous not in continuous_communicating'):
        rvd.benchmark_part('continuous_communicating', 1, ('prms_9-RiverSwimContinuous',))
    b = rvd.benchmark_part('continuous_communicating', 2, ('prms_1-FrozenLakeContinuous',), n_steps=100)
    assert [c.name for c in b.mdp_configs] == ['prms_1-FrozenLakeContinuous'] and b.experiment_config.n_seeds == 2
