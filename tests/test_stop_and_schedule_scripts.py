"""The scripts behind the learn-throughout figures: `benchmarks/optimality_stop_effect.py` (both rules, the same run) and
`benchmarks/schedule_simulation.py` (the package's order of a benchmark's runs against longest-first and the lower bound)."""
import os, sys, subprocess
from pathlib import Path
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'benchmarks'))
import schedule_simulation as sim
import optimality_stop_effect as ose

def test_list_scheduling():
    "Tasks go, in the order given, to the first free worker."
    assert sim.makespan([3, 3, 2, 2, 2], 2) == 7
    assert sim.makespan([2, 2, 2, 3, 3], 2) == 7
    assert sim.makespan([5, 1, 1, 1, 1, 1], 2) == 5
    assert sim.makespan([1] * 10, 256) == 1

def test_tail_per_step():
    "The final per-step value and the per-step value over the last steps of a cumulative indicator."
    T = 300_000
    steps = pd.Series(range(0, T, 100)).tolist() + [T - 1]
    logs = pd.DataFrame(dict(steps=steps, x=[min(s, 150_000) * 0.5 + max(0, s - 150_000) * 1.0 for s in steps]))
    final, tail = ose.per_step(logs, 'x', T)
    assert abs(final - (75_000 + 149_999) / T) < 1e-9
    assert abs(tail - 1.0) < 1e-9   # the last 100,000 steps pay 1 per step

def test_cases_are_benchmark_mdps():
    "Every case names an MDP of its benchmark."
    for name, setting, scope, klass, seed in ose.CASES:
        mdp = ose.case_mdp(setting, scope, klass, seed)
        assert type(mdp).__name__ == klass and mdp.is_episodic() == name.endswith('Episodic')

@pytest.fixture(scope='module')
def results(tmp_path_factory):
    "A small results folder written by the main job: two RiverSwims, two agents, two seeds."
    tmp = tmp_path_factory.mktemp('sched')
    (tmp / 'rivers' / 'mdp_configs').mkdir(parents=True)
    (tmp / 'rivers' / 'mdp_configs' / 'RiverSwimContinuous.gin').write_text('prms_0/RiverSwimContinuous.size = 5\nprms_1/RiverSwimContinuous.size = 12\n')
    r = subprocess.run([sys.executable, '-m', 'colosseum_nb', 'run', '--benchmark', str(tmp / 'rivers'), '--results', str(tmp / 'results'), '--steps', '3000',
                        '--seeds', '2', '--log-every', '500', '--cores', '1', '--no-progress', '--no-analysis', '--agents', 'QLearningContinuous', 'PSRLContinuous'],
                       capture_output=True, text=True, env=dict(os.environ, NUMBA_NUM_THREADS='1'), timeout=600)
    assert r.returncode == 0, r.stderr
    return tmp / 'results' / 'rivers'

def test_schedule_simulation_on_a_results_folder(results):
    df = sim.runs_of(results)
    assert len(df) == 8 and set(df.agent) == {'QLearningContinuous', 'PSRLContinuous'} and (df.seconds > 0).all()
    big = df[df.mdp.str.startswith('prms_1')].groupby('agent').estimate.first()
    small = df[df.mdp.str.startswith('prms_0')].groupby('agent').estimate.first()
    assert big['PSRLContinuous'] > small['PSRLContinuous'] and big['PSRLContinuous'] > big['QLearningContinuous']   # a planner's cost grows with the MDP
    wall, tasks = sim.package_schedule(df, 1)
    assert abs(wall - df.seconds.sum()) < 1e-6 and 1 <= tasks <= 8   # one worker: every run once, back to back
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'schedule_simulation.py'), str(results), '--workers', '1', '2', '64'],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = {int(l.split()[0]): l.split() for l in r.stdout.splitlines() if l.strip()[:1].isdigit() and len(l.split()) == 9}
    assert set(rows) == {1, 2, 64}
    assert float(rows[1][3]) == pytest.approx(1.0, abs=1e-3)   # one worker: every order takes the total
    for w, row in rows.items(): assert min(float(row[i]) for i in (3, 6, 8)) >= 1 - 1e-3   # no order beats the bound
