#!/usr/bin/env bash
# Builds the libFuzzer targets and runs them for SECONDS of wall time in all, one target per
# core at a time (FUZZ_JOBS to choose), each for an equal share, e.g.
#
#     Fuzz/run.sh 120            # what CI runs: 40 s per target on 2 cores
#     Fuzz/run.sh 3600           # a local campaign; Fuzz/corpus/ is kept between runs
#     FUZZ_TARGETS="payload" Fuzz/run.sh 600
#
# Exits non-zero if any target crashes, leaks, takes more than 1 s on an input or more than
# 512 MB, or if a committed regression input (Fuzz/regressions/) fails. Crashing inputs are
# written to Fuzz/artifacts/<target>/; copy each into Fuzz/regressions/<target>/ and record its
# expected outcome in Fuzz/regressions/MANIFEST (see the README's "Fuzzing" section).
# Linux only: it needs the toolchain's libFuzzer and lld.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
targets=(${FUZZ_TARGETS:-pipeline payload input render json token})
# Targets run FUZZ_JOBS at a time (default: one per core), so SECONDS of wall time give each
# target SECONDS × jobs / targets seconds.
jobs=${FUZZ_JOBS:-$(nproc)}
(( jobs >= 1 )) || jobs=1
(( jobs <= ${#targets[@]} )) || jobs=${#targets[@]}
per_target=$(( seconds * jobs / ${#targets[@]} ))
(( per_target >= 1 )) || per_target=1
shared=../shared/corpus/real

echo "== building fuzz targets (release, -sanitize=fuzzer,address)"
# Swift and C (the OpenSSL shim) are both instrumented. lld, because gold fails to link
# libFuzzer into SwiftPM executables ("internal error in format_file_lineno").
# Any source change means a clean build: SwiftPM's incremental build once kept a fuzz executable
# compiled against an old layout of a struct from a module it imports, and ASan reported the
# stale copy as a stack-buffer-overflow in the harness.
build_log=Fuzz/.build/fuzz-build.log
mkdir -p Fuzz/.build
fingerprint=$(find Package.swift Sources Fuzz/Package.swift Fuzz/Sources -type f -print0 | sort -z \
  | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ "$(cat Fuzz/.build/fingerprint 2>/dev/null)" != "$fingerprint" ]; then
  rm -rf Fuzz/.build/release Fuzz/.build/x86_64-unknown-linux-gnu/release
fi
if ! swift build --package-path Fuzz --scratch-path Fuzz/.build -c release \
     -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library \
     -Xcc -fsanitize=fuzzer-no-link,address -Xswiftc -use-ld=lld > "$build_log" 2>&1; then
  grep -v '^\[' "$build_log" >&2
  echo "fuzz: the fuzz targets do not build" >&2
  exit 1
fi
echo "$fingerprint" > Fuzz/.build/fingerprint
bin=$(swift build --package-path Fuzz --scratch-path Fuzz/.build -c release --show-bin-path)
for target in "${targets[@]}"; do
  [ -x "$bin/fuzz-$target" ] || { echo "fuzz-$target was not built" >&2; exit 1; }
done

# Seeds that are derived, not committed: payloads cut out of the receipts, and text forms of
# them (base64 wrapped and not, request bodies). Rebuilt each run; git-ignored.
seeds=Fuzz/corpus/.seeds
rm -rf "$seeds"
mkdir -p "$seeds/payload" "$seeds/input"
receipts=(TestReceipts/receipts/*.receipt)
if [ -d "$shared" ]; then receipts+=("$shared"/*.receipt); fi
for receipt in "${receipts[@]}"; do
  name=$(basename "$receipt" .receipt)
  openssl cms -verify -noverify -nosigs -inform DER -binary -in "$receipt" \
    -out "$seeds/payload/$name" >/dev/null 2>&1 || rm -f "$seeds/payload/$name"
  [ -s "$seeds/payload/$name" ] || rm -f "$seeds/payload/$name"
done
for receipt in TestReceipts/receipts/sample.receipt TestReceipts/receipts/storekit.receipt \
               $(ls "$shared"/*.receipt 2>/dev/null | head -5); do
  name=$(basename "$receipt" .receipt)
  base64 -w 76 "$receipt" > "$seeds/input/$name.b64"
  printf '{"receipt-data":"%s","password":"x"}' "$(base64 -w 0 "$receipt" | sed 's,/,\\/,g')" > "$seeds/input/$name.json"
done

# Libfuzzer writes new inputs to the first corpus directory only; the others are read.
seed_dirs() {
  local target=$1
  if [ -d "Fuzz/regressions/$target" ]; then echo "Fuzz/regressions/$target"; fi
  case $target in
    payload) echo "$seeds/payload" ;;
    input) echo "$seeds/input TestReceipts/receipts" ;;
    pipeline) echo "TestReceipts/receipts" ;;
    render) echo "TestReceipts/receipts TestReceipts/hostile" ;;
    json) echo "Fuzz/regressions/input" ;;
    token) [ -d TestReceipts/jws ] && echo "TestReceipts/jws" ;;
  esac
  case $target in
    pipeline|input) [ -d "$shared" ] && echo "$shared" ;;
    token) [ -d "$shared/../jws/tokens" ] && echo "$shared/../jws/tokens" ;;
  esac
  return 0
}

# A smaller quarantine than ASan's 256 MB default keeps long runs under -rss_limit_mb=512 while
# still catching use-after-free of recent allocations.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=64}
# Swift's own crash backtracer reads other threads' memory, which ASan then reports instead of
# the real trap; libFuzzer prints the stack itself.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
export LSAN_OPTIONS=suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0

mkdir -p Fuzz/artifacts/logs
# One target: its regression inputs replayed, then fuzzed for per_target seconds. What it has to
# say goes to Fuzz/artifacts/logs/TARGET.summary and its executed units to .units, and it fails
# when the target failed: the targets run side by side, and their reports are printed in order.
fuzz_one() {
  local target=$1 summary=Fuzz/artifacts/logs/$1.summary
  echo 0 > "Fuzz/artifacts/logs/$target.units"
  : > "$summary"
  # Replay the committed regression inputs first (each runs once).
  local regressions
  regressions=$(find "Fuzz/regressions/$target" -type f 2>/dev/null | sort || true)
  if [ -n "$regressions" ]; then
    # shellcheck disable=SC2086
    if ! "$bin/fuzz-$target" -timeout=1 -rss_limit_mb=512 -malloc_limit_mb=512 $regressions \
         > "Fuzz/artifacts/logs/$target-regressions.log" 2>&1; then
      { echo "FAIL: a regression input crashes fuzz-$target; see Fuzz/artifacts/logs/$target-regressions.log"
        tail -40 "Fuzz/artifacts/logs/$target-regressions.log"; } >> "$summary"
      return 1
    fi
  fi

  local corpus=Fuzz/corpus/$target log=Fuzz/artifacts/logs/$target.log result units
  mkdir -p "$corpus" "Fuzz/artifacts/$target"
  echo "== fuzz-$target for ${per_target}s (corpus $corpus: $(ls "$corpus" | wc -l) inputs kept from earlier runs)" >> "$summary"
  # shellcheck disable=SC2046
  if "$bin/fuzz-$target" "$corpus" $(seed_dirs "$target") \
       -dict=Fuzz/receipt.dict -timeout=1 -rss_limit_mb=512 -malloc_limit_mb=512 \
       -max_total_time="$per_target" -print_final_stats=1 \
       -artifact_prefix="Fuzz/artifacts/$target/" > "$log" 2>&1; then
    result=ok
  else
    result="FAILED (exit $?)"
  fi
  units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  echo "${units:-0}" > "Fuzz/artifacts/logs/$target.units"
  { grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" \
      | awk '!seen[$0]++' | sed 's/^/   /' || true
    echo "   fuzz-$target: $result, ${units:-0} executed units, corpus now $(ls "$corpus" | wc -l) inputs"
    if [ "$result" != ok ]; then
      grep -E -A12 'ERROR: ' "$log" || true
      grep -E 'Fatal error: |SUMMARY: |Test unit written to|ALARM' "$log" || true
      echo "   full log: $log"
    fi; } >> "$summary"
  [ "$result" = ok ]
}

# As many targets at once as there are jobs: each fuzzing process is single-threaded.
running=0
for target in "${targets[@]}"; do
  if (( running >= jobs )); then wait -n || true; running=$((running - 1)); fi
  { if fuzz_one "$target"; then echo 0; else echo 1; fi > "Fuzz/artifacts/logs/$target.status"; } &
  running=$((running + 1))
done
wait
status=0
total=0
for target in "${targets[@]}"; do
  if [ "$(cat "Fuzz/artifacts/logs/$target.status")" = 0 ]; then
    cat "Fuzz/artifacts/logs/$target.summary"
  else
    cat "Fuzz/artifacts/logs/$target.summary" >&2
    status=1
  fi
  total=$(( total + $(cat "Fuzz/artifacts/logs/$target.units") ))
done

# A running count for the README's total (git-ignored, like the corpus).
stats=Fuzz/corpus/executions
previous=$(cat "$stats" 2>/dev/null || echo 0)
echo $(( previous + total )) > "$stats"
echo "fuzz: $total executed units in this run ($(cat "$stats") in all runs kept in Fuzz/corpus/)"
if (( status != 0 )); then
  echo "fuzz: FAILED; crashing inputs are in Fuzz/artifacts/<target>/" >&2
fi
exit $status
