"Shared pieces of the fault-tolerance tests (LocalCluster and SLURM): runs slow enough to interrupt, and a kill in the middle of a benchmark."
import threading, time
import pandas as pd
from colosseum_nb.experiment import ExperimentConfig
from colosseum_nb.experiment.experiment_instances import run_experiment_instances

SLOW = ExperimentConfig(n_seeds=1, n_steps=300_000, max_interaction_time_s=600, log_performance_indicators_every=50_000)

def table(path):
    "A log without its wall-clock column, as text."
    return pd.read_csv(path).drop(columns='steps_per_second').to_csv(index=False)

def run_and_kill_midway(insts, client, kill, in_process, timeout=300):
    "Run `insts` on `client`, `kill()` once a first log is written; check all complete, earlier logs untouched, logs equal to `in_process` runs."
    out = {}
    t = threading.Thread(target=lambda: out.setdefault('s', run_experiment_instances(insts, client=client, show_progress=False)))
    t.start()
    deadline = time.time() + timeout
    while time.time() < deadline and not any(i.result_path.exists() for i in insts): time.sleep(0.05)
    written = {i.result_path: i.result_path.read_text() for i in insts if i.result_path.exists()}
    assert written, "no run finished in time"
    kill()                                                       # a worker dies in the middle of the benchmark
    t.join(600)
    s = out['s']
    assert (len(s.done), s.failed) == (len(insts), {}), s
    for p, text in written.items(): assert p.read_text() == text   # what was written before is untouched
    here = run_experiment_instances(in_process, n_cores=1, show_progress=False)
    assert [table(p) for p in s] == [table(p) for p in here]
    return s
