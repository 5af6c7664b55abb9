"""Step 1 of Colosseum's tutorial "Scale benchmarking to a cluster" on `SMALL_HYPEROPT_CONF`, timed, in a fresh process.

The tutorial's code (with `colosseum` renamed to `colosseum_nb`) for QLearningEpisodic and QLearningContinuous: sample 2
configurations of each and 2 instances of each of the 7 MDP families per setting, instantiate and pickle the 56
experiment instances, run them with `run_experiment_instances(paths, n_cores=<cores>, skip_completed=True)` (the cluster
jobs, here local), then select the best configuration of each agent. Prints the wall time of each part and of the whole
(target: under 2 minutes), the load average (the machine may be shared), and the selected configurations.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/hyperopt_small.py [--cores N]
"""
import os, sys, time, shutil, tempfile, subprocess, argparse

TARGET_S = 120

CODE = '''
import os, time
T0 = time.perf_counter()
from colosseum_nb import config
from colosseum_nb.agent.agents.episodic import QLearningEpisodic
from colosseum_nb.agent.agents.infinite_horizon import QLearningContinuous
from colosseum_nb.benchmark.run import instantiate_and_get_exp_instances_from_agents_and_benchmarks_for_hyperopt
from colosseum_nb.experiment.experiment_instances import save_instances_to_folder, run_experiment_instances
from colosseum_nb.hyperopt import SMALL_HYPEROPT_CONF
from colosseum_nb.hyperopt.selection import retrieve_best_agent_config_from_hp_folder, hyperopt_scores
from colosseum_nb.hyperopt.utils import sample_agent_configs_and_benchmarks_for_hyperopt
T1 = time.perf_counter()

experiments_folder = "experiments" + os.sep + "tabular"
experiment_name = "tutorial"
exp_instances_hpo_folder = config.get_hyperopt_folder() + "experiment_instances"
config.set_experiments_folder(experiments_folder, experiment_name)
config.set_hyperopt_folder(experiments_folder, experiment_name)

agent_cls = [QLearningContinuous, QLearningEpisodic]
hyperopt_benchmarks = sample_agent_configs_and_benchmarks_for_hyperopt(agent_cls, SMALL_HYPEROPT_CONF)
hp_exp_instances = instantiate_and_get_exp_instances_from_agents_and_benchmarks_for_hyperopt(hyperopt_benchmarks)
exp_instance_paths = save_instances_to_folder(hp_exp_instances, exp_instances_hpo_folder)
T2 = time.perf_counter()
run_experiment_instances(exp_instance_paths, n_cores=N_CORES, skip_completed=True)
T3 = time.perf_counter()
agents_configs = retrieve_best_agent_config_from_hp_folder(agent_cls)
T4 = time.perf_counter()
print(f"imports {T1 - T0:.1f} s; sampling, instantiating and pickling {len(exp_instance_paths)} instances {T2 - T1:.1f} s; "
      f"runs {T3 - T2:.1f} s; selection {T4 - T3:.2f} s")
for c in agent_cls:
    print(f"\\n{c.__name__}:"); print(hyperopt_scores(c).to_string()); print(agents_configs[c].strip())
'''

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--cores', type=int, default=os.cpu_count(), help='local processes (default: every core)')
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix='hyperopt_small_')
    env = dict(os.environ, NUMBA_NUM_THREADS=os.environ.get('NUMBA_NUM_THREADS', '1'))
    try:
        load0 = os.getloadavg()[0]
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, '-c', CODE.replace('N_CORES', str(a.cores))], cwd=work, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if r.returncode != 0: sys.exit(f"failed ({r.returncode}):\n{r.stderr[-3000:]}")
        print(r.stdout)
        print(f"SMALL_HYPEROPT_CONF step 1 for QLearningEpisodic and QLearningContinuous, {a.cores} cores, fresh process: {wall:.1f} s wall "
              f"(target: under {TARGET_S} s); load average {load0:.1f} before, {os.getloadavg()[0]:.1f} after")
    finally: shutil.rmtree(work, ignore_errors=True)

if __name__ == '__main__': main()
