#!/usr/bin/env bash
# The project's test command (README.md): every CI gate in order, then one line `N passed, N failed`.
# Gates: nbdev_clean leaves no diff; nbdev_export leaves no diff; lint-imports (the layers contract); nbdev_test on every notebook (cells flagged `dask` and
# `slurm` included: the slurm ones need a running SLURM, see tools/slurm_localhost.sh); pytest tests/.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${VENV:-.venv}/bin
export IN_TEST=1 NUMBA_NUM_THREADS=1 MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1
passed=0; failed=0
gate() { # name, command...
  local name=$1; shift
  if "$@"; then echo "PASS $name"; passed=$((passed+1)); else echo "FAIL $name"; failed=$((failed+1)); fi
}
nodiff() { git diff --quiet -- nbs colosseum_nb || { git --no-pager diff --stat -- nbs colosseum_nb; return 1; }; }
clean_gate() { $BIN/nbdev_clean >/dev/null && nodiff; }
export_gate() { $BIN/nbdev_export && nodiff; }
gate "nbdev_clean leaves no diff" clean_gate
gate "nbdev_export leaves no diff" export_gate
# the layers of .importlinter (config, utils -> ... -> cli): no module imports a higher one; this checkout's package, not an installed one
lint_gate() { PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" $BIN/lint-imports --no-cache --no-logo; }
gate "lint-imports" lint_gate

# notebooks: one test per notebook (nbdev_test prints only failures)
nbs=$(cd nbs && find . -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' -not -name '_*' | sort)
n_nbs=$(echo "$nbs" | grep -c . || true)
log=$(mktemp)
$BIN/nbdev_test --n_workers 2 --timing --flags "dask slurm" 2>&1 | tee "$log"
nb_failed=$(sed -n '/Failed On The Following Notebooks/,$p' "$log" | grep -c $'^\t' || true)
if ! grep -q 'Success' "$log" && [ "$nb_failed" = 0 ]; then nb_failed=$n_nbs; fi
passed=$((passed + n_nbs - nb_failed)); failed=$((failed + nb_failed))

# integration tests
xml=$(mktemp --suffix .xml)
$BIN/python -m pytest tests/ -q -rs -p no:cacheprovider --junitxml="$xml"
read p f < <($BIN/python - "$xml" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    r = ET.parse(sys.argv[1]).getroot(); s = r if r.tag == 'testsuite' else r.find('testsuite')
    t, fl, er, sk = (int(s.get(k, 0)) for k in ('tests', 'failures', 'errors', 'skipped'))
    print(t - fl - er - sk, fl + er)
except Exception: print(0, 1)
PY
)
passed=$((passed + p)); failed=$((failed + f))
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
