#!/usr/bin/env bash
# Makes the README's picture and verdict from a real run, so that they
# stay true: it starts the calibrated simulator (poolsweep serve --sim),
# sweeps it, draws the throughput figure, and writes
#
#   docs/readme/throughput.png, docs/readme/throughput.svg  the figure
#   docs/readme/verdict.txt                                 the knee line and analyze's verdict
#
# and puts the verdict into README.md between its verdict markers. Run it
# after a change to what a sweep measures, analyses or draws, look at the
# PNG, and commit the lot. About two minutes on a quiet 2-core machine.
#
# The simulator has 8 read slots of 10 ms each: 800 ops/s at most, reached
# at concurrency 8 — the knee the figure should show. Its service time is
# long enough that this machine's CPU is never the limit.
set -euo pipefail
cd "$(dirname "$0")/.."

spec=${SPEC:-slots=8,service=10ms}
tmp=$(mktemp -d)
server=
cleanup() {
  exec 4>&- 2>/dev/null || true # closing serve's stdin stops it
  if [ -n "$server" ]; then wait "$server" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/poolsweep" ./cmd/poolsweep
ps="$tmp/poolsweep"

# The server runs until its standard input closes: hold it open on fd 4.
mkfifo "$tmp/stdin"
"$ps" serve --sim "$spec" <"$tmp/stdin" >"$tmp/serve.out" 2>"$tmp/serve.err" &
server=$!
exec 4>"$tmp/stdin"
for _ in $(seq 100); do
  [ -s "$tmp/serve.out" ] && break
  sleep 0.1
done
uri=$(head -n 1 "$tmp/serve.out")
case $uri in
mongodb://*) ;;
*) echo "readme-figures: the simulator did not start:" >&2; cat "$tmp/serve.err" >&2; exit 1 ;;
esac

"$ps" sweep --target "sim=$uri" --concurrency 1..64x2 --trials 3 --warmup 500ms --duration 2s \
  --out "$tmp/run" --no-plot >"$tmp/summary.txt"
"$ps" plot "$tmp/run/results.jsonl" -o "$tmp/figures" --figure throughput >/dev/null
"$ps" analyze "$tmp/run/results.jsonl" >"$tmp/analyze.txt"

mkdir -p docs/readme
cp "$tmp/figures/throughput.png" "$tmp/figures/throughput.svg" docs/readme/
{
  grep '^knee:' "$tmp/summary.txt"
  echo
  # analyze's verdict: the paragraph after the series heading.
  awk 'NR > 1 && /^$/ { exit } NR > 1' "$tmp/analyze.txt"
  grep '^recommendation:' "$tmp/analyze.txt"
} >docs/readme/verdict.txt

# README.md: the verdict between the markers, as a code block.
awk -v verdict=docs/readme/verdict.txt '
  /<!-- verdict:begin -->/ { print; print "```"; while ((getline l < verdict) > 0) print l; print "```"; skip = 1; next }
  /<!-- verdict:end -->/ { skip = 0 }
  !skip' README.md >"$tmp/README.md"
cp "$tmp/README.md" README.md
echo "wrote docs/readme/throughput.png, throughput.svg and verdict.txt; README.md's verdict updated"
