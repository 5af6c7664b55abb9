"""Numba compile time of the main job: every built-in tabular agent's loop compiled from empty caches, in a fresh process.

Each measurement starts a new Python process with empty numba and loop caches (temporary `NUMBA_CACHE_DIR` and
`COLOSSEUM_NB_LOOP_CACHE`) and times `precompile(...)` of the agents, which is what `colosseum_nb run` does before its
runs (every kernel the loop calls, the agent's kernels and the regret kernels included); the package's import is timed
apart. `--src` adds another checkout of the package (e.g. a worktree of an older commit) measured in turn with this one,
for a side-by-side figure on one machine in one hour.

    python benchmarks/compile_time.py [--agents QLearningContinuous ...] [--repeat 3] [--src /tmp/older_checkout]
"""
import argparse, json, os, subprocess, sys, tempfile
from pathlib import Path
import numpy as np

CHILD = """
import json, sys, time
t = time.perf_counter()
from colosseum_nb.experiment.agent_mdp_interaction import precompile
t_import = time.perf_counter() - t
t = time.perf_counter(); per = precompile(sys.argv[1:], progress=False); t_compile = time.perf_counter() - t
print(json.dumps(dict(imported=t_import, compiled=t_compile, per=per)))
"""

def measure(src:str, agents:list) -> dict:
    "One fresh process with empty caches, the package taken from `src` (None: this checkout)."
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(d) / 'numba'), COLOSSEUM_NB_LOOP_CACHE=str(Path(d) / 'loops'), NUMBA_NUM_THREADS='1')
        if src: env['PYTHONPATH'] = src
        out = subprocess.run([sys.executable, '-c', CHILD, *agents], env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--agents', nargs='+', default=None, help="built-in agent names (default: Colosseum's seven)")
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--src', default=None, help='another checkout, measured in turn with this one')
    a = ap.parse_args()
    from colosseum_nb.agent.agents import DEFAULT_RUN_AGENTS
    agents = a.agents or list(DEFAULT_RUN_AGENTS)
    here = str(Path(__file__).resolve().parents[1])
    srcs = [('this checkout', here)] + ([(f'--src {a.src}', a.src)] if a.src else [])
    got = {name: [] for name, _ in srcs}
    for r in range(a.repeat):
        for name, src in srcs:
            m = measure(src, agents); got[name].append(m['compiled'])
            print(f"round {r + 1}, {name}: import {m['imported']:.1f} s, compile {m['compiled']:.1f} s", flush=True)
    print(f"\n{len(agents)} agents ({', '.join(agents)}), empty caches, fresh processes:")
    for name, xs in got.items(): print(f"  {name:<40} median {np.median(xs):6.1f} s  (rounds: {', '.join(f'{x:.1f}' for x in xs)})")

if __name__ == '__main__': main()
