#!/usr/bin/env bash
# Round 3, second device call (fixes): issue 29's challenges again after two changes — p2's reference now issues
# its three staging loads together (the first reference, kept as p2_challenge/alt_staged_loop.cu, waited for each
# load in a loop and was slower than the baseline), and lesson 8 gains alt_colread_8x32.cu. Every challenge
# variant is re-run, so the first call's numbers get a second reading. From the repo root on the GPU machine:
#
#     H=measurements/h200 bash measurements/h200/round3/round3b.sh
#
# Writes $OUT/round3b.log and $OUT/round3b.tar.gz (raw3b/). Steps time-boxed as in round3.sh.
set -u
H="${H:-measurements/h200}"
OUT="${OUT:-/tmp/h200_out}"
R="$(mktemp -d /tmp/round3b.XXXXXX)/raw3b"
B="$(mktemp -d /tmp/round3b_build.XXXXXX)"
mkdir -p "$OUT" "$R"/{challenges,racecheck}
NVCC=(nvcc -arch=sm_90 -O3 -lineinfo)
NCU=(ncu --clock-control none)
source "$H/round3/metrics.sh"
step() { echo; echo "=== [$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
filter_metrics() {
    local kept=() m
    for m in $*; do
        [[ " ${kept[*]} " == *" $m "* ]] && continue
        if [ ! -s "$B/known.txt" ] || grep -qE "^${m%%.*}([[:space:]]|$)" "$B/known.txt"; then kept+=("$m");
        else echo "dropped unknown metric: $m" >&2; fi
    done
    local IFS=,; echo "${kept[*]}"
}
ncu_run() {
    local name="$1" metrics="$2" tmo="$3"; shift 3
    echo "ncu_command[$name]: ${NCU[*]} --metrics $metrics --export $name $*" | tee -a "$R/commands.txt" | cut -c1-300
    timeout "$tmo" "${NCU[@]}" --metrics "$metrics" --export "$R/$name" --force-overwrite "$@" > "$R/$name.log" 2>&1
    echo "exit $?"; tail -2 "$R/$name.log"
    [ -s "$R/$name.ncu-rep" ] && timeout 60 ncu --import "$R/$name.ncu-rep" --csv --page raw --print-units base > "$R/$name.csv" 2>&1 \
        && echo "$name.csv: $(wc -l < "$R/$name.csv") lines"
}
run() {
    local name="$1" tmo="$2"; shift 2
    echo "command[$name]: $*" | sed "s|$B/||g" | tee -a "$R/commands.txt"
    timeout "$tmo" "$@" > "$R/$name" 2>&1; echo "exit $?"; tail -2 "$R/$name"
}
sanitize() {
    local name="$1" tmo="$2"; shift 2
    echo "command[$name]: compute-sanitizer $*" | sed "s|$B/||g" | tee -a "$R/commands.txt"
    { echo "# compute-sanitizer $*" | sed "s|$B/||g"; timeout "$tmo" compute-sanitizer "$@" 2>&1; echo "exit: $?"; } > "$R/$name"
    grep -E "SUMMARY|exit:" "$R/$name" | tail -2
}
main() {
    step "versions"
    { echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "command: H=$H bash measurements/h200/round3/round3b.sh"
      echo "nvcc_flags: ${NVCC[*]:1}"; echo "host: $(uname -srm)"
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,persistence_mode,power.limit --format=csv 2>&1
      echo "--- ncu --version"; ncu --version 2>&1; echo "--- nvcc --version"; nvcc --version 2>&1
      echo "--- compute-sanitizer --version"; compute-sanitizer --version 2>&1; } > "$R/versions.txt"
    cat "$R/versions.txt"
    step "compile"
    ( cd "$H/round3" && "${NVCC[@]}" -Xptxas -v -o "$B/challenges_bench" challenges_bench.cu > "$R/ptxas_challenges_bench.txt" 2>&1 )
    cuobjdump -sass "$B/challenges_bench" > "$R/sass_challenges_bench.txt" 2>&1
    timeout 60 ncu --query-metrics > "$B/query.txt" 2>&1
    grep -E '^[a-z0-9]+__[A-Za-z0-9_]+' "$B/query.txt" > "$B/known.txt"
    local M_CLASS M_BIG
    M_CLASS="$(filter_metrics "$CLASS")"; M_BIG="$(filter_metrics "$GEMM $MEM")"
    step "check, time (20 runs), ncu small, ncu big"
    run challenges/check.jsonl 120 "$B/challenges_bench" check
    run challenges/timing.jsonl 120 "$B/challenges_bench" time 20
    ncu_run challenges/ncu_small "$M_CLASS" 120 "$B/challenges_bench" once
    ncu_run challenges/ncu_big "$M_BIG" 150 "$B/challenges_bench" time 0
    step "sanitizers"
    sanitize racecheck/challenges_once.txt 60 --tool racecheck --print-limit 0 "$B/challenges_bench" once
    sanitize racecheck/challenges_memcheck.txt 60 --tool memcheck "$B/challenges_bench" check
    step "done"
}
main 2>&1 | tee "$R/round3b.log"
cp "$R/round3b.log" "$OUT/round3b.log"
tar czf "$OUT/round3b.tar.gz" -C "$(dirname "$R")" raw3b
ls -la "$OUT"
