#!/usr/bin/env bash
# Builds the parser fuzzers with clang and runs each for a bounded time on a
# seed corpus taken from conf/ and the spec snippets. Fails on any crash,
# leak, sanitizer report or hang.
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]   (default 30)
set -euo pipefail

seconds="${1:-30}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$repo/build-fuzz"
work="$build/corpus"

cmake -S "$repo/tests/fuzz" -B "$build" -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++ -DGANTRY_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=(fuzz_hostlist fuzz_gantry_conf fuzz_gres_conf fuzz_cgroup_conf fuzz_resctrl_conf)
ninja -C "$build" -j1 "${targets[@]}"

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
for target in "${targets[@]}"; do
  echo "== $target: ${seconds}s"
  artifacts="$build/artifacts/$target"
  mkdir -p "$artifacts"
  if ! "$build/$target" "$work/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=8192 -artifact_prefix="$artifacts/" -print_final_stats=1 >"$build/$target.log" 2>&1; then
    echo "FAILED: $target (log: $build/$target.log, inputs: $artifacts/)"
    tail -n 40 "$build/$target.log"
    status=1
  else
    grep -E '^stat::number_of_executed_units' "$build/$target.log" || true
  fi
done
exit "$status"
