#!/usr/bin/env bash
# The prepared GPU check of the deep agents in lockstep, for a fresh GPU machine that has PyTorch, numba, numpy and
# pandas but not this package's other dependencies, in two parts of at most PART_S seconds each (default 540), every
# figure printed as soon as it is measured:
#   part 1: each engine's aggregate steps/s at N = 400, 1,600 and 6,400 runs, the exact regret logged every 100 steps
#           (`benchmarks/deep_lockstep.py --device cuda --no-single --path both`, the quick test's MDPs through
#           StateInfo; DQN on both paths, the host-stepped batch and the whole step on the device, side by side);
#   part 2: Colosseum's non-tabular default benchmark for DQN through the main job, `colosseum_nb run --device cuda`
#           (each of the four settings: 20 MDPs x 20 seeds x 500,000 steps through StateInfo, a log every 100 steps,
#           all 400 runs of a setting as one lockstep batch): first every setting with 2,000 steps per run (the wall
#           time and the projection to 500,000 steps), then the settings in full as far as the part's time allows,
#           each setting's wall time and cut runs printed as it ends.
# Run from the repository root:
#
#   bash benchmarks/gpu_wheels.sh .whl                      # here, with network: the missing wheels (dask, gin, fastcore, ...)
#   bash benchmarks/gpu_check.sh .whl [1 2]                 # there: installs them into /tmp/site without network, then the parts
#
# The package itself runs from the checkout (PYTHONPATH); nothing is written outside /tmp. A smoke test on a CPU:
#   DEVICE=cpu N_LIST=20 AGENTS=DQNContinuous PART_S=60 bash benchmarks/gpu_check.sh .whl 1 2
set -u
WHEELS=${1:-.whl}; shift || true
PARTS=${*:-1 2}
PART_S=${PART_S:-540}
PATHS=${PATHS:-both}   # part 1's DQN: the batch stepped on the host (numba MDPs) and on the device (play_on_device), side by side
DEVICE=${DEVICE:-cuda}; N_LIST=${N_LIST:-400 1600 6400}; AGENTS=${AGENTS:-DQNContinuous ActorCriticContinuous ActorCriticRNNContinuous BootDQNContinuous}
export PYTHONUNBUFFERED=1 NUMBA_NUM_THREADS=${NUMBA_NUM_THREADS:-1}
if ! python3 -c "import dask, distributed, gin, fastcore" 2>/dev/null; then
  ls "$WHEELS"/*.whl >/dev/null 2>&1 || { echo "no wheels in $WHEELS: make them with benchmarks/gpu_wheels.sh" >&2; exit 1; }
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$WHEELS"/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
fi
python3 - <<'PY' || exit 1
import torch, numba, numpy, colosseum_nb
print(f"colosseum_nb {colosseum_nb.__version__}; torch {torch.__version__}, CUDA {torch.version.cuda}, "
      f"{torch.cuda.get_device_name() if torch.cuda.is_available() else 'NO GPU'}; numba {numba.__version__}; numpy {numpy.__version__}")
PY
git log -1 --format='commit %H' 2>/dev/null || true

part1() {
  local end=$((SECONDS + PART_S))
  for agent in $AGENTS; do
    for n in $N_LIST; do
      local left=$((end - SECONDS)); [ $left -gt 20 ] || { echo "part 1: out of time before $agent N=$n"; return; }
      echo "== part 1: $agent, N=$n ($left s left)"
      timeout $((left < 150 ? left : 150)) python3 benchmarks/deep_lockstep.py --device $DEVICE --no-single --agents $agent --n $n \
          --steps 300 --log-every 100 --path $PATHS || echo "   $agent N=$n: stopped (rc $?)"
    done
  done
}

run_setting() {   # run_setting SETTING RESULTS LIMIT_S [extra run options...]: one setting through the main job; prints its wall time, runs logged and cut
  local s=$1 root=$2 limit=$3; shift 3
  local agent=DQNContinuous; [[ $s == episodic_* ]] && agent=DQNEpisodic
  local t0=$SECONDS
  timeout $limit python3 -m colosseum_nb run --benchmark $s --agents $agent --emission-map StateInfo --device $DEVICE --lockstep 400 \
      --cores 1 --no-analysis --no-progress --results $root "$@" > /tmp/gpu_check_$s.log 2>&1
  local rc=$?
  python3 - "$root" "$s" "$((SECONDS - t0))" "$rc" "$*" <<'PY'
import sys, pathlib
root, s, wall, rc, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
logs = list(pathlib.Path(root).glob(f'benchmark_{s}/logs/*/seed*_logs.csv'))
cut = 0
if logs:
    from colosseum_nb.analysis import load_results
    df = load_results(pathlib.Path(root) / f'benchmark_{s}', hardness=False, columns=['normalized_cumulative_regret'], max_rows=1)
    cut = int(df.groupby(['mdp', 'agent', 'seed'], observed=True).time_cut.first().sum())
state = 'finished' if rc == 0 else f'stopped by the time limit (rc {rc})' if rc in (124, 137) else f'failed (rc {rc})'
print(f"   {s} {extra or '(500,000 steps)'}: {state} after {wall} s wall; {len(logs)} of 400 runs logged, {cut} cut by the time budget", flush=True)
PY
  [ $rc -eq 0 ] || tail -3 /tmp/gpu_check_$s.log
  return $rc
}

part2() {
  local end=$((SECONDS + PART_S))
  rm -rf /tmp/gpu_check_short /tmp/gpu_check_results
  echo "== part 2: DQN on the four non-tabular default settings (StateInfo), 400 runs each as one lockstep batch"
  for s in continuous_communicating continuous_ergodic episodic_communicating episodic_ergodic; do   # 2,000 steps first: the projection
    local left=$((end - SECONDS)); [ $left -gt 30 ] || { echo "part 2: out of time before the short run of $s"; return; }
    local t0=$SECONDS
    run_setting $s /tmp/gpu_check_short $((left < 120 ? left : 120)) --steps 2000 && \
      echo "   $s: 500,000 steps projected from that: $(( (SECONDS - t0) * 250 )) s (setup and compilation included, so an upper bound)"
  done
  for s in continuous_communicating continuous_ergodic episodic_communicating episodic_ergodic; do   # then the benchmark itself, as far as time allows
    local left=$((end - SECONDS)); [ $left -gt 30 ] || { echo "part 2: out of time before $s"; return; }
    run_setting $s /tmp/gpu_check_results $left
  done
}

for p in $PARTS; do part$p; done
