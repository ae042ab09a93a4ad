#!/usr/bin/env bash
# Sets everything up, starts a local Gantry cluster, runs a sample GPU job
# and keeps the cluster running until Ctrl-C (or stops it with --stop).
#   scripts/demo.sh [--stop] [--root DIR]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo/scripts/install-deps.sh"
bash "$repo/scripts/build.sh"
exec /usr/bin/python3 "$repo/scripts/demo_cluster.py" "$@"
