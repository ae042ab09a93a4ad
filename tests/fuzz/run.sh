#!/usr/bin/env bash
# Builds the fuzzers with clang and runs each for a bounded time: the parser
# targets on a seed corpus taken from conf/ and the spec snippets, and
# fuzz_core_rpc once per controller RPC handler on requests it writes
# itself. Fails on any crash, leak, sanitizer report or hang.
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]   (default 30)
# The budget stays what five parser targets had: each parser target runs
# half of SECONDS_PER_TARGET, and the handlers share the other half of the
# total (at least 2 s each).
set -euo pipefail

seconds="${1:-30}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$repo/build-fuzz"
# As scripts/build.sh does: ccache shares the instrumented objects between
# checkouts in different folders (a CI clone reuses what an earlier one built).
export CCACHE_BASEDIR="$repo" CCACHE_NOHASHDIR=1
work="$build/corpus"

cmake -S "$repo/tests/fuzz" -B "$build" -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++ -DGANTRY_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=(fuzz_hostlist fuzz_gantry_conf fuzz_gres_conf fuzz_cgroup_conf fuzz_resctrl_conf)
handlers=(SubmitJob CancelJob ListJobs GetBatchScript ListNodes ListPartitions GetConfig UpdateNode UpdateTres ListDrainedTres SuspendJob ResumeJob
          HoldJob ReleaseJob RequeueJob UpdateJob CreateStep GetStep CompleteAllocation Register Heartbeat StepComplete
          ListAccountingJobs ListNodeEvents ListShares)
ninja -C "$build" -j"${GANTRY_BUILD_JOBS:-2}" "${targets[@]}" fuzz_core_rpc
parser_seconds=$(( (seconds + 1) / 2 ))
handler_seconds=$(( (seconds * ${#targets[@]} / 2 + ${#handlers[@]} - 1) / ${#handlers[@]} ))
[ "$handler_seconds" -ge 2 ] || handler_seconds=2

# Seeds: every file of that kind in conf/ and tests/fixtures/spec-snippets/.
seed() {  # seed TARGET NAME-PATTERN
  local dir="$work/$1"
  mkdir -p "$dir"
  find "$repo/conf" "$repo/tests/fixtures/spec-snippets" -name "$2" -type f | while read -r f; do
    cp "$f" "$dir/$(echo "${f#"$repo"/}" | tr '/' '_')"
  done
}
rm -rf "$work"
seed fuzz_gantry_conf 'gantry.conf'
seed fuzz_gres_conf 'gres.conf'
seed fuzz_cgroup_conf 'cgroup.conf'
seed fuzz_resctrl_conf 'resctrl.yaml'
mkdir -p "$work/fuzz_hostlist"
i=0
for expr in 'tux[0-7]' 'n[01-10,12]' 'rack[1-2]-n[1-4]' 'a,b[1-3]' '/dev/nvidia[0-15]' 'c[001-128]' 'x y,z'; do
  printf '%s' "$expr" > "$work/fuzz_hostlist/seed$i"
  i=$((i + 1))
done

status=0
run() {  # run NAME SECONDS BINARY CORPUS
  local name="$1" budget="$2" binary="$3" corpus="$4"
  echo "== $name: ${budget}s"
  local artifacts="$build/artifacts/$name"
  mkdir -p "$artifacts"
  if ! "$binary" "$corpus" -max_total_time="$budget" -timeout=10 -rss_limit_mb=2048 \
      -max_len=8192 -artifact_prefix="$artifacts/" -print_final_stats=1 >"$build/$name.log" 2>&1; then
    echo "FAILED: $name (log: $build/$name.log, inputs: $artifacts/)"
    tail -n 40 "$build/$name.log"
    status=1
  else
    grep -E '^stat::number_of_executed_units' "$build/$name.log" || true
  fi
}
for target in "${targets[@]}"; do
  run "$target" "$parser_seconds" "$build/$target" "$work/$target"
done
# One run per handler; the target writes valid requests of it as seeds.
# Reproduce a crash with: GANTRY_FUZZ_HANDLER=NAME build-fuzz/fuzz_core_rpc INPUT
for handler in "${handlers[@]}"; do
  export GANTRY_FUZZ_HANDLER="$handler" GANTRY_FUZZ_SEEDS="$work/rpc_$handler"
  mkdir -p "$GANTRY_FUZZ_SEEDS"
  run "rpc_$handler" "$handler_seconds" "$build/fuzz_core_rpc" "$GANTRY_FUZZ_SEEDS"
done
unset GANTRY_FUZZ_HANDLER GANTRY_FUZZ_SEEDS
exit "$status"
