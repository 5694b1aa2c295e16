#!/usr/bin/env bash
# Measures how often the deployment verdict's peak-ratio interval holds
# the truth, on simulators whose ratio is known by construction. Each run
# is one sweep, all defaults but the plan (--clients 3 --workload api at
# one level where every target saturates), of four targets:
#
#   base     8 read and 8 write slots of 8 ms      (1,000 finds/s)
#   double   16 slots of 8 ms                      truth 2
#   shards2  2 shards of base behind a router      truth 2
#   slower   8 slots of 12 ms                      truth 2/3
#
# and compares each against base (compare --format json). It writes one
# line per pair to OUT/coverage.tsv — run, candidate, truth, ratio, low,
# high, held (1, 0, or - for no interval), the load average before the
# run — and prints the tally. Rerun it on a quiet machine to separate the
# tool from a busy host: a pair without an interval is one whose peak ran
# on a starved load host (its verdict says so), not a miss.
#
#   scripts/interval-coverage.sh [RUNS=20] [LEVEL=32] [OUT=coverage-out]
#
# FIRST=21 scripts/interval-coverage.sh 25 … adds runs 21 to 25 to OUT. A
# run whose target failed (a simulator that missed its deadlines on a
# starved host) is left out, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
level=${2:-32}
out=${3:-coverage-out}
mkdir -p "$out"
ps="$out/poolsweep"
[ -x "$ps" ] || go build -o "$ps" ./cmd/poolsweep
tsv="$out/coverage.tsv"
[ -s "$tsv" ] || printf 'run\tcandidate\ttruth\tratio\tlow\thigh\theld\tload1\n' >"$tsv"

field() { # field NAME JSON: the number NAME of the peak_ratio object, or null
  printf '%s' "$2" | tr -d ' \n' | grep -o '"peak_ratio":{[^}]*}' | grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2
}

for i in $(seq "${FIRST:-1}" "$runs"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  dir="$out/run-$i"
  rm -rf "$dir"
  "$ps" sweep --run-id "coverage-$i" --out "$dir" --no-plot --clients 3 --workload api --concurrency "$level" \
    --target base=sim:slots=8,service=8ms \
    --target double=sim:slots=16,service=8ms \
    --target shards2=sim:shards=2,slots=8,service=8ms,routers=1 \
    --target slower=sim:slots=8,service=12ms >"$dir.log" 2>&1 || { echo "run $i failed: $dir.log" >&2; continue; }
  for pair in double:2 shards2:2 slower:0.6666667; do
    cand=${pair%%:*} truth=${pair#*:}
    js=$("$ps" compare "$dir/results.jsonl" --baseline base --candidate "$cand" --format json)
    r=$(field value "$js") lo=$(field low "$js") hi=$(field high "$js")
    held=-
    if [ "$lo" != null ] && [ -n "$lo" ]; then
      held=$(awk -v l="$lo" -v h="$hi" -v t="$truth" 'BEGIN { print (l <= t && t <= h) ? 1 : 0 }')
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$cand" "$truth" "$r" "$lo" "$hi" "$held" "$load" >>"$tsv"
  done
done

python3 scripts/interval-coverage.py "$out"
