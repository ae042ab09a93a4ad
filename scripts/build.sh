#!/usr/bin/env bash
# Configures and builds Gantry into build/ (Ninja, ccache when present).
#   scripts/build.sh [extra cmake arguments]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${GANTRY_BUILD_JOBS:-$(nproc)}"
cmake -S "$repo" -B "$repo/build" -G Ninja -UGANTRY_ONLY "$@" >/dev/null
ninja -C "$repo/build" -j"$jobs"
