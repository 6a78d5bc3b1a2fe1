#!/usr/bin/env bash
# What the C++ shim adds to a program: a program that calls leveldb::NewBloomFilterPolicy, built
# with -O2 -Wl,--gc-sections and stripped, linked with the system's libleveldb.a alone (stock) and
# with the shim's archive ahead of it. Prints both sizes, the growth, and where the added bytes
# are: by section, and the code and data by origin (from the unstripped program's symbols).
#
#   benches/shim_size.sh [BUILD_DIR]     (default: target/shim-size)
#
# Needs what the shim's build needs (cmake, cargo, libleveldb-dev, libsnappy-dev). A benchmark,
# not a test: the README reports its figure.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-target/shim-size}")
mkdir -p "$out"

cmake -S . -B "$out/build" -DCMAKE_BUILD_TYPE=Release -DLEVELDB_BLOOM_SHIM=ON \
  -DLEVELDB_BLOOM_BUILD_TESTS=OFF >/dev/null
cmake --build "$out/build" --target leveldb_bloom_shim_archive >/dev/null

cat >"$out/prog.cc" <<'EOF'
#include <leveldb/filter_policy.h>

#include <cstdio>

int main() {
  const leveldb::FilterPolicy* policy = leveldb::NewBloomFilterPolicy(10);
  std::puts(policy->Name());
  delete policy;
  return 0;
}
EOF
libleveldb=$(c++ -print-file-name=libleveldb.a)
link() {
  c++ -O2 -Wl,--gc-sections "$out/prog.cc" -o "$out/$1" "${@:2}" "$libleveldb" -lsnappy -pthread \
    $(cat "cmake/native-static-libs/$(rustc -vV | sed -n 's/^host: //p').txt")
  strip -o "$out/$1-stripped" "$out/$1"
}
link stock
link shim "$out/build/lib/libleveldb_bloom_shim.a"

size_of() { stat -c %s "$out/$1-stripped"; }
stock=$(size_of stock)
shim=$(size_of shim)
echo "stripped program: stock $stock bytes, with the shim $shim bytes:" \
  "+$((shim - stock)) bytes (+$(((shim - stock + 512) / 1024)) KB)"

echo
echo "sections, bytes added (size -A):"
join <(size -A "$out/stock-stripped" | awk 'NR > 2 && $1 ~ /^\./ {print $1, $2}' | sort) \
  <(size -A "$out/shim-stripped" | awk 'NR > 2 && $1 ~ /^\./ {print $1, $2}' | sort) -a 2 -e 0 \
  -o 0,1.2,2.2 | awk '$3 != $2 {printf "  %-20s %+8d\n", $1, $3 - $2}'

echo
echo "code and data by origin, bytes (symbols of the program with the shim, less the stock one's):"
declare -A stock_symbols=() origin=()
while read -r _ _ _ name; do
  stock_symbols[$name]=1
done < <(nm --size-sort -S -C "$out/stock")
while read -r _ size _ name; do
  [ -z "${stock_symbols[$name]:-}" ] || continue
  case "$name" in
    *leveldb_bloom*) key="leveldb-bloom's core" ;;
    *BloomFilterPolicy* | *'leveldb::'*) key="the shim and leveldb" ;;
    *gimli* | *addr2line* | *miniz_oxide* | *rustc_demangle* | *backtrace* | *object::*)
      key="std: backtrace printing (gimli, addr2line, miniz_oxide, rustc_demangle)" ;;
    *std_detect*) key="std_detect (CPU features)" ;;
    *fmt* | *panic*) key="core/std: formatting and panics" ;;
    *std::* | *core::* | *alloc::* | *__rust* | *_Unwind* | *rust_eh*) key="core/std/alloc: other" ;;
    *) key="C, C++ runtime and other" ;;
  esac
  origin[$key]=$((${origin[$key]:-0} + 16#$size))
done < <(nm --size-sort -S -C "$out/shim")
for key in "${!origin[@]}"; do
  printf "  %8d  %s\n" "${origin[$key]}" "$key"
done | sort -rn
