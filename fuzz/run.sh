#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) under AddressSanitizer, as many at once as
# the machine has cores, starting from the committed seeds (fuzz/seeds/<target>, written by
# examples/write_seeds.rs from the reference vectors; table_reader's are small tables and a
# MANIFEST the system leveldb wrote through tools/leveldb_db.cc, and blocks compressed by
# python3's zlib and zstd's command) plus a scratch corpus, and prints the executions each
# reached. Any difference from the oracle or leveldb, or any crash, stops that target and fails
# the run (a non-zero exit), with the input in fuzz/artifacts/<target>/.
#
# Needs cargo-fuzz (cargo install --locked cargo-fuzz@0.13.2) and, to compare against leveldb
# too, libleveldb-dev (LEVELDB_BLOOM_REQUIRE_LEVELDB=1 makes its absence an error); filter_block
# compares against leveldb's own filter block classes given a leveldb source tree in
# LEVELDB_BLOOM_LEVELDB_SRC (LEVELDB_BLOOM_REQUIRE_LEVELDB_SRC=1 makes its absence an error).
set -euo pipefail
budget="${1:-60}"
cd "$(dirname "$0")/.."

# cargo fuzz passes nightly-only flags (-Zsanitizer=address, sancov passes); the stable
# toolchain, the only one here, accepts them when told it is bootstrapping.
export RUSTC_BOOTSTRAP=1
# The committed lock file must be up to date: fails here instead of resolving anew.
cargo fetch --locked --manifest-path fuzz/Cargo.toml
cargo fuzz build

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# fuzz_one TARGET: TARGET for the budget, from the scratch corpus and its seeds; prints the
# executions reached, or the end of its log and fails.
fuzz_one() {
  local target=$1 log="$scratch/$1.log"
  mkdir -p "$scratch/$target"
  # The scratch corpus comes first, so what the fuzzer finds is written there, not to seeds/.
  if ! cargo fuzz run "$target" "$scratch/$target" "fuzz/seeds/$target" -- \
      -max_total_time="$budget" -print_final_stats=1 >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz $target: FAILED (input saved in fuzz/artifacts/$target/)"
    return 1
  fi
  local execs seeds
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  seeds="$(find "fuzz/seeds/$target" -type f | wc -l)"
  echo "fuzz $target: $execs executions in ${budget} s from $seeds seeds, no difference or crash"
}

# As many targets at once as there are cores: each fuzzer runs on one, and the budget is wall
# time, so each still gets its budget of a core, and the run takes a fraction of the time.
parallel=$(nproc)
running=0
status=0
for target in $(cargo fuzz list); do
  if ((running >= parallel)); then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || status=1
  running=$((running - 1))
done
exit "$status"
