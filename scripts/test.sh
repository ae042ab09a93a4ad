#!/usr/bin/env bash
# Sets up everything and runs every test: unit tests (ctest), integration
# tests on a real local cluster (pytest), and the parser fuzzers for a
# bounded time. Exit status 0 only when all of them pass.
#   scripts/test.sh            everything
#   GANTRY_FUZZ_SECONDS=0      skip the fuzzers
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

bash scripts/install-deps.sh
bash scripts/build.sh

echo "== unit tests"
ctest --test-dir build --output-on-failure -j"$(nproc)"

fuzz_seconds="${GANTRY_FUZZ_SECONDS:-20}"
if [ "$fuzz_seconds" -gt 0 ]; then
  echo "== fuzzers (${fuzz_seconds}s each)"
  bash tests/fuzz/run.sh "$fuzz_seconds"
fi

echo "== integration tests"
# Debian's interpreter, where python3-pytest is installed.
/usr/bin/python3 -m pytest -p no:cacheprovider -q -rs tests/integration
