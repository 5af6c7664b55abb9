#!/usr/bin/env bash
# Download, here (with network), the wheels that a fresh GPU machine lacks to run this package: its image has Python
# 3.12 with PyTorch, numba, numpy, pandas, scipy, matplotlib, pyyaml, tqdm, psutil, click, cloudpickle, toolz, msgpack,
# fsspec and sortedcontainers, but not dask, distributed, dask-jobqueue, gin-config or fastcore (and their few other
# needs). The versions are the ones of this environment, so the GPU runs the code that the tests here checked.
#
#   bash benchmarks/gpu_wheels.sh [FOLDER=.whl] [PYTHON=.venv/bin/python]
#
# Then `bash benchmarks/gpu_check.sh FOLDER` on the GPU machine installs them without network (keep FOLDER out of git).
set -euo pipefail
out=${1:-.whl}; py=${2:-.venv/bin/python}
names="dask distributed dask-jobqueue gin-config fastcore partd locket tblib tornado zict"
mkdir -p "$out"
for n in $names; do
  v=$("$py" -m pip show "$n" 2>/dev/null | sed -n 's/^Version: //p')
  [ -n "$v" ] || { echo "$n is not installed in $py: install the package's requirements first" >&2; exit 1; }
  "$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
      -d "$out" "$n==$v"
  echo "$n==$v"
done
ls "$out"
