#!/usr/bin/env bash
# Are the floors in settings.ini honest? Builds a fresh python3.11 venv in a temp dir with every direct
# requirement pinned at its floor (the `>=` bound), installs colosseum_nb without its dependencies,
# and runs the project's tests (tools/run_tests.sh) in it.
# Run it whenever a floor in settings.ini changes, or code starts to use a newer numpy/numba/pandas/
# dask/fastcore feature. Usage: bash tools/check_floors.sh [--keep]   (--keep leaves the venv behind)
set -uo pipefail
cd "$(dirname "$0")/.."
PY=$(command -v python3.11) || { echo "check_floors: python3.11 not found"; exit 1; }
dir=$(mktemp -d /tmp/colosseum_floors.XXXX)
[ "${1:-}" = --keep ] && echo "check_floors: venv kept in $dir/venv" || trap 'rm -rf "$dir"' EXIT
# `name>=X[,<Y]` -> `name==X`; a requirement without a floor stays unpinned
floors=$("$PY" - <<'PY'
import configparser, re, shlex
cfg = configparser.ConfigParser(delimiters=['=']); cfg.read('settings.ini')
for r in shlex.split(cfg['DEFAULT']['requirements']):
    m = re.match(r'([A-Za-z0-9_.\-]+(?:\[[^\]]*\])?)\s*(.*)', r); name, spec = m.groups()
    lo = re.search(r'>=\s*([^,\s]+)', spec)
    print(f'{name}=={lo.group(1)}' if lo else name)
PY
)
# the dev tools the tests need; installed first, so that forcing the floors afterwards wins. nbdev 2.4.14 and
# execnb 0.1.18 import fastcore features of 1.12.3 (e.g. `fastcore.xtras.rtoken_hex`), so fastcore's floor cannot be
# lower than that and still be tested.
# The dev tools are settings.ini's dev_requirements (as `pip install -e '.[dev]'` installs them), plus wheel.
dev="wheel $("$PY" -c "import configparser; c = configparser.ConfigParser(delimiters=['=']); c.read('settings.ini'); print(c['DEFAULT']['dev_requirements'])")"
echo "check_floors: floors: $(echo $floors)"
"$PY" -m venv "$dir/venv" || exit 1
pip="$dir/venv/bin/python -m pip install -q"
quiet() { "$@" 2> >(grep -v "^WARNING: Location" >&2); }   # pip warns about every local index folder it skips
$pip --upgrade pip >/dev/null 2>&1
quiet $pip $dev || { echo "check_floors: could not install the dev tools"; exit 1; }
quiet $pip --force-reinstall --no-deps $floors || { echo "check_floors: could not install the floors"; exit 1; }
quiet $pip $floors || { echo "check_floors: the floors' own dependencies do not resolve"; exit 1; }
quiet $pip --no-deps --no-build-isolation -e . || { echo "check_floors: could not install colosseum_nb"; exit 1; }
"$dir/venv/bin/python" -m pip list 2>/dev/null | grep -iE "^(numpy|numba|llvmlite|pandas|matplotlib|dask|distributed|dask-jobqueue|gin-config|fastcore|scipy|tqdm|pyyaml|nbdev|execnb) "
"$dir/venv/bin/python" -m pip check || echo "check_floors: (pip check above lists conflicts between the dev tools and the floors)"
# numba's on-disk cache must not mix with the main venv's numba: compile into the temp dir
NUMBA_CACHE_DIR="$dir/numba_cache" VENV="$dir/venv" bash tools/run_tests.sh
