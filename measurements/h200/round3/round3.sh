#!/usr/bin/env bash
# H200 measurements, third round (issue 23 item 7, issue 26 item 9, issue 27 items 5-8, issue 28 items 1 and 3,
# issue 29's challenge references and baselines), in one device call. From the repo root on the GPU machine:
#
#     H=measurements/h200 bash measurements/h200/round3/round3.sh   # H: a copy of measurements/h200 (gemm/, round3/)
#
# Writes to $OUT: round3.log (this log) and round3.tar.gz (raw3/: every raw file, listed in round3/README.md).
# Then, here: tar xzf round3.tar.gz -C measurements/h200/round3/ && .venv/bin/python measurements/h200/round3/parse3.py
# Every step is time-boxed, logs, and carries on after a failure; the least important steps are skipped late.
set -u
H="${H:-measurements/h200}"
OUT="${OUT:-/tmp/h200_out}"
R="$(mktemp -d /tmp/round3.XXXXXX)/raw3"      # becomes raw3/ inside the tarball
B="$(mktemp -d /tmp/round3_build.XXXXXX)"
mkdir -p "$OUT" "$R"/{classes3,sweep,transpose8,gemm3,challenges,racecheck}
NVCC=(nvcc -arch=sm_90 -O3 -lineinfo)
NCU=(ncu --clock-control none)
source "$H/round3/metrics.sh"
step() { echo; echo "=== [$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
late() { [ "$SECONDS" -gt "$1" ] && { echo "SKIPPED (${SECONDS}s elapsed > $1): $2"; return 0; }; return 1; }

filter_metrics() {   # keep names whose base (before the first '.') `ncu --query-metrics` lists (all if the list is empty)
    local kept=() m
    for m in $*; do
        [[ " ${kept[*]} " == *" $m "* ]] && continue   # once each
        if [ ! -s "$B/known.txt" ] || grep -qE "^${m%%.*}([[:space:]]|$)" "$B/known.txt"; then kept+=("$m");
        else echo "dropped unknown metric: $m" >&2; fi
    done
    local IFS=,; echo "${kept[*]}"
}

# ncu_run NAME METRICS TIMEOUT CMD...: profile CMD, export NAME.ncu-rep, raw CSV NAME.csv (time-boxed)
ncu_run() {
    local name="$1" metrics="$2" tmo="$3"; shift 3
    echo "ncu_command[$name]: ${NCU[*]} --metrics $metrics --export $name $*" | tee -a "$R/commands.txt" | cut -c1-300
    timeout "$tmo" "${NCU[@]}" --metrics "$metrics" --export "$R/$name" --force-overwrite "$@" > "$R/$name.log" 2>&1
    echo "exit $?"; tail -2 "$R/$name.log"
    [ -s "$R/$name.ncu-rep" ] && timeout 60 ncu --import "$R/$name.ncu-rep" --csv --page raw --print-units base > "$R/$name.csv" 2>&1 \
        && echo "$name.csv: $(wc -l < "$R/$name.csv") lines"
}
# run NAME TIMEOUT CMD...: plain run, stdout+stderr to NAME (a file under raw3/), command logged
run() {
    local name="$1" tmo="$2"; shift 2
    echo "command[$name]: $*" | sed "s|$B/||g" | tee -a "$R/commands.txt"
    timeout "$tmo" "$@" > "$R/$name" 2>&1; local rc=$?
    echo "exit $rc"; tail -2 "$R/$name"
}
sanitize() {   # sanitize NAME TIMEOUT TOOL-ARGS... -- CMD...
    local name="$1" tmo="$2"; shift 2
    echo "command[$name]: compute-sanitizer $*" | sed "s|$B/||g" | tee -a "$R/commands.txt"
    { echo "# compute-sanitizer $*" | sed "s|$B/||g"; timeout "$tmo" compute-sanitizer "$@" 2>&1; echo "exit: $?"; } > "$R/$name"
    grep -E "SUMMARY|exit:" "$R/$name" | tail -2
}

main() {
    step "versions"
    {
        echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "command: H=$H bash measurements/h200/round3/round3.sh"
        echo "nvcc_flags: ${NVCC[*]:1}"
        echo "host: $(uname -srm)"
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,persistence_mode,power.limit --format=csv 2>&1
        echo "--- ncu --version"; ncu --version 2>&1
        echo "--- nvcc --version"; nvcc --version 2>&1
        echo "--- compute-sanitizer --version"; compute-sanitizer --version 2>&1
        echo "--- cuobjdump --version"; cuobjdump --version 2>&1 | tail -2
    } > "$R/versions.txt"
    cat "$R/versions.txt"

    step "compile (parallel)"
    local p
    for p in classes3 sweep transpose8 gemm3 challenges_bench; do
        ( cd "$H/round3" && "${NVCC[@]}" -Xptxas -v -o "$B/$p" "$p.cu" > "$B/c_$p.log" 2>&1 ) &
    done
    wait
    for p in classes3 sweep transpose8 gemm3 challenges_bench; do
        cp "$B/c_$p.log" "$R/ptxas_$p.txt"; [ -x "$B/$p" ] && echo "built $p" || { echo "BUILD FAILED $p"; cat "$B/c_$p.log"; }
        [ -x "$B/$p" ] && cuobjdump -sass "$B/$p" > "$R/sass_$p.txt" 2>&1
    done

    step "ncu --query-metrics"
    timeout 60 ncu --query-metrics > "$B/query.txt" 2>&1
    grep -E '^[a-z0-9]+__[A-Za-z0-9_]+' "$B/query.txt" > "$B/known.txt"; wc -l < "$B/known.txt"
    local M_CLASS M_MEM M_GEMM M_BIG
    M_CLASS="$(filter_metrics "$CLASS")"; M_MEM="$(filter_metrics "$MEM")"; M_GEMM="$(filter_metrics "$GEMM")"
    M_BIG="$(filter_metrics "$GEMM $MEM")"

    step "D. device properties, FP32 peak (FFMA kernel, 20 runs), clocks"
    run gemm3/props.json 30 "$B/gemm3" props
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > "$R/gemm3/clocks_before_peak.txt" 2>&1
    run gemm3/peak.jsonl 60 "$B/gemm3" peak 20
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > "$R/gemm3/clocks_after_peak.txt" 2>&1

    step "A. classes3: plain run (checks), ncu (one pass set), racecheck on the scans, memcheck"
    run classes3/run.log 60 "$B/classes3"
    ncu_run classes3/ncu_classes3 "$M_CLASS" 150 "$B/classes3"

    step "E. challenges: check (ragged shapes), time at the H200's size (20 runs)"
    run challenges/check.jsonl 120 "$B/challenges_bench" check
    run challenges/timing.jsonl 120 "$B/challenges_bench" time 20

    step "D. GEMM: check small shapes, time 4096^3 (20 runs)"
    run gemm3/check.jsonl 60 "$B/gemm3" check 64 64 64
    timeout 60 "$B/gemm3" check 70 45 33 >> "$R/gemm3/check.jsonl" 2>&1
    run gemm3/timing_4096.jsonl 150 "$B/gemm3" time 4096 4096 4096 20

    step "C. transposes at 8192^2: time (30 runs), output checked"
    run transpose8/timing_8192.jsonl 150 "$B/transpose8" time 8192 30

    step "B. offset/stride sweep: time (20 runs after 3 warm-ups)"
    run sweep/timing.jsonl 150 "$B/sweep" time 20

    step "E. challenges: ncu at the small shapes (labsim's), racecheck"
    ncu_run challenges/ncu_small "$M_CLASS" 120 "$B/challenges_bench" once

    step "D. GEMM: ncu at 64^3 and 70x45x33 (class metrics), FFMA peak kernel"
    ncu_run gemm3/ncu_gemm_64 "$M_CLASS" 90 "$B/gemm3" once 64 64 64
    ncu_run gemm3/ncu_gemm_70x45x33 "$M_CLASS" 90 "$B/gemm3" once 70 45 33
    ncu_run gemm3/ncu_peak "$M_GEMM" 60 -k regex:ffma_peak -c 1 "$B/gemm3" peak 1

    step "C. transposes at 8192^2: ncu memory levels"
    ncu_run transpose8/ncu_8192 "$M_MEM" 180 "$B/transpose8" once 8192

    step "D. GEMM 4096^3: ncu stalls, FFMA, wavefronts, L2/DRAM bytes"
    late 420 "GEMM 4096 ncu" || ncu_run gemm3/ncu_gemm_4096 "$M_GEMM" 200 "$B/gemm3" once 4096 4096 4096

    step "B. sweep: ncu on offsets 0,1,2,4,8,16,32 and strides 1,2,4,8,16,32"
    late 470 "sweep offset ncu" || ncu_run sweep/ncu_offset "$M_MEM" 90 -k regex:copy_ "$B/sweep" once offset 0,1,2,4,8,16,32
    late 500 "sweep stride ncu" || ncu_run sweep/ncu_stride "$M_MEM" 90 -k regex:copy_ "$B/sweep" once stride 1,2,4,8,16,32

    step "E. challenges: ncu at the H200's size (one launch each)"
    late 520 "challenges big ncu" || ncu_run challenges/ncu_big "$M_BIG" 90 "$B/challenges_bench" time 0

    step "sanitizers"
    late 540 "racecheck scans" || sanitize racecheck/classes3_scan.txt 40 --tool racecheck --print-limit 0 "$B/classes3" scan
    late 550 "racecheck challenges" || sanitize racecheck/challenges_once.txt 40 --tool racecheck --print-limit 0 "$B/challenges_bench" once
    late 560 "memcheck challenges" || sanitize racecheck/challenges_memcheck.txt 30 --tool memcheck "$B/challenges_bench" check
    late 570 "memcheck classes3" || sanitize racecheck/classes3_memcheck.txt 20 --tool memcheck "$B/classes3"
    step "done"
}

main 2>&1 | tee "$R/round3.log"
cp "$R/round3.log" "$OUT/round3.log"
tar czf "$OUT/round3.tar.gz" -C "$(dirname "$R")" raw3
ls -la "$OUT"
