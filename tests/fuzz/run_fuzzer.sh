#!/usr/bin/env bash
# run_fuzzer.sh FUZZER CORPUS FOUND SECONDS [SEED_DIR...]: replay the committed corpus (and
# any further seed folders), then fuzz
# for SECONDS. New inputs go to FOUND (the build tree), never into the committed corpus.
# A crash, a leak, a timeout (> 10 s on one input) or > 2 GB RSS fails the test; the
# input that did it is left in FOUND as crash-* / timeout-* / oom-* to copy into CORPUS.
# OPSCOPE_FUZZ_SEED fixes libFuzzer's seed (CI sets it, so a finding there is replayed by the
# same command); unset, each run explores from a new seed (long local runs).
set -euo pipefail
fuzzer=$1 corpus=$2 found=$3 seconds=$4
mkdir -p "$found" "$corpus"
cd "$found"
seed=()
[[ -n "${OPSCOPE_FUZZ_SEED:-}" ]] && seed=(-seed="$OPSCOPE_FUZZ_SEED")
exec "$fuzzer" "${seed[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
  -print_final_stats=1 "$found" "$corpus" "${@:5}"
