#!/usr/bin/env bash
# The shim's speed inside leveldb: db_bench `fillrandom,readrandom,readmissing --bloom_bits=10`
# over a million keys, from a stock build of the leveldb source tree SRC_DIR and from the shim's
# build of it (shim/build-leveldb), in alternating runs. Prints each run's micros/op and, per
# benchmark and build, the median, min and max.
#
#   benches/shim_db_bench.sh SRC_DIR [RUNS] [BUILD_DIR]   (RUNS per build, default 5;
#                                                          BUILD_DIR default target/shim-db-bench)
#
# Needs what shim/build-leveldb needs. Say, with the figures, which CPU ran them and how busy the
# machine was (uptime).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 SRC_DIR [RUNS] [BUILD_DIR]" >&2
  exit 2
fi
src=$(realpath "$1")
runs=${2:-5}
cd "$(dirname "$0")/.."
out=$(realpath -m "${3:-target/shim-db-bench}")
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"

# The stock build is configured as shim/build-leveldb configures leveldb.
cmake -S "$src" -B "$out/stock" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out/stock" --target db_bench >/dev/null
shim/build-leveldb "$src" "$out/shim" db_bench >/dev/null

declare -A db_bench=([stock]="$out/stock/db_bench" [shim]="$out/shim/build/db_bench")
results="$out/results.txt"
: >"$results"
for run in $(seq "$runs"); do
  for build in stock shim; do
    db="$out/db-$build"
    rm -rf "$db"
    "${db_bench[$build]}" --benchmarks=fillrandom,readrandom,readmissing --bloom_bits=10 \
      --num=1000000 --db="$db" 2>/dev/null |
      awk -v build="$build" -v run="$run" '$2 == ":" && $4 == "micros/op;" {
        print $1, build, run, $3 }' | tee -a "$results"
  done
done
rm -rf "$out/db-stock" "$out/db-shim"

echo
echo "benchmark build: median [min, max] micros/op over $runs runs"
sort -k1,1 -k2,2r -k4,4n "$results" | awk '
  function flush() {
    if (n) printf "%-12s %-5s %8.3f [%.3f, %.3f]\n", key1, key2, v[int((n + 1) / 2)], v[1], v[n]
  }
  $1 != key1 || $2 != key2 { flush(); key1 = $1; key2 = $2; n = 0 }
  { v[++n] = $4 }
  END { flush() }'
