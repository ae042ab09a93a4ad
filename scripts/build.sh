#!/usr/bin/env bash
# Configures and builds Gantry into build/ (Ninja, ccache when present).
#   scripts/build.sh [extra cmake arguments]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${GANTRY_BUILD_JOBS:-$(nproc)}"
# Let ccache share objects between checkouts in different folders (a CI
# clone reuses what an earlier build of the same sources compiled).
export CCACHE_BASEDIR="$repo" CCACHE_NOHASHDIR=1
cmake -S "$repo" -B "$repo/build" -G Ninja -UGANTRY_ONLY "$@" >/dev/null
ninja -C "$repo/build" -j"$jobs"
