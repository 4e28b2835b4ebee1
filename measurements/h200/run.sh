#!/usr/bin/env bash
# H200 ground truth for labsim, in one device call. From the repo root, on the GPU machine:
#
#     bash measurements/h200/run.sh
#
# Writes at most 8 files to $OUT (default /tmp/h200_out): versions.txt, run.log, sass.txt, query_metrics.txt,
# ncu_main.csv, ncu_main.ncu-rep, ncu_extra.csv, sanitizer.txt. Then, here:
#     cp <files_at>/* measurements/h200/raw/ && .venv/bin/python measurements/h200/parse.py
# Every step has its own timeout; optional steps are skipped past 420 s so the whole run ends well inside 10 min.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-/tmp/h200_out}"
mkdir -p "$OUT"
BUILD="$(mktemp -d /tmp/h200_build.XXXXXX)"
NVCC_FLAGS=(-arch=sm_90 -O3 -lineinfo)

# Contract metrics (DESIGN.md) plus global atomics/reductions; names checked against `ncu --query-metrics`.
MAIN_METRICS=(
    l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
    smsp__inst_executed_op_global_ld.sum
    smsp__inst_executed_op_global_st.sum
    smsp__inst_executed_op_shared_ld.sum
    smsp__inst_executed_op_shared_st.sum
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
)
# Nice to have: predication split, instrumented (sass) counts, atomics. Unknown names are dropped, not fatal.
EXTRA_METRICS=(
    smsp__inst_executed.sum
    smsp__inst_executed_op_global_ld_pred_on_any.sum
    smsp__inst_executed_op_global_ld_pred_off_all.sum
    smsp__inst_executed_op_shared_ld_pred_on_any.sum
    smsp__inst_executed_op_shared_ld_pred_off_all.sum
    smsp__sass_inst_executed_op_global_ld.sum
    smsp__sass_inst_executed_op_shared_ld.sum
    smsp__sass_inst_executed_op_shared_st.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
    smsp__inst_executed_op_global_red.sum
    smsp__inst_executed_op_shared_atom.sum
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
    l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
)

# Keep the names whose base (before the rollup suffix) `ncu --query-metrics` lists; all of them if it listed none.
filter_metrics() {
    local known="$1"; shift
    local kept=() m
    if [ ! -s "$known" ]; then
        echo "$@" | tr ' ' ','
        return
    fi
    for m in "$@"; do
        if grep -qE "^${m%.*}([[:space:]]|$)" "$known"; then kept+=("$m"); else echo "dropped unknown metric: $m" >&2; fi
    done
    local IFS=,
    echo "${kept[*]}"
}

step() { echo; echo "=== [$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }

main() {
    local rc=0
    step "versions"
    {
        echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "command: bash measurements/h200/run.sh"
        echo "nvcc_flags: ${NVCC_FLAGS[*]}"
        echo "host: $(uname -srm)"
        echo "--- nvidia-smi -q | head -40"
        nvidia-smi -q 2>&1 | head -40
        echo "--- nvidia-smi"
        nvidia-smi 2>&1
        echo "--- ncu --version"
        ncu --version 2>&1
        echo "--- nvcc --version"
        nvcc --version 2>&1
        echo "--- compute-sanitizer --version"
        compute-sanitizer --version 2>&1
        echo "--- cuobjdump --version"
        cuobjdump --version 2>&1
    } > "$OUT/versions.txt"
    cat "$OUT/versions.txt"

    step "compile (nvcc ${NVCC_FLAGS[*]})"
    for prog in microbench misaligned race; do
        if ! timeout 120 nvcc "${NVCC_FLAGS[@]}" -o "$BUILD/$prog" "$HERE/$prog.cu"; then
            echo "COMPILE FAILED: $prog"
            rc=1
        fi
    done
    [ -x "$BUILD/microbench" ] || { echo "no microbench binary: stopping"; return 1; }

    step "cuobjdump -sass"
    for prog in microbench misaligned race; do
        [ -x "$BUILD/$prog" ] && { echo "##### $prog"; cuobjdump -sass "$BUILD/$prog"; }
    done > "$OUT/sass.txt" 2>&1
    python3 "$HERE/sass_table.py" "$OUT/sass.txt" || true

    step "plain run (alignment, launch list, transpose checks)"
    timeout 60 "$BUILD/microbench" || { echo "microbench exited $?"; rc=1; }

    step "ncu --query-metrics"
    timeout 60 ncu --query-metrics > "$OUT/query_metrics.txt" 2>&1 || echo "query-metrics failed (exit $?)"
    # Only lines that start with a metric name count as the known list.
    grep -E '^[a-z0-9]+__[A-Za-z0-9_]+' "$OUT/query_metrics.txt" > "$BUILD/known_metrics.txt" || true
    echo "known base metrics: $(wc -l < "$BUILD/known_metrics.txt")"

    local main_list extra_list
    main_list="$(filter_metrics "$BUILD/known_metrics.txt" "${MAIN_METRICS[@]}")"
    extra_list="$(filter_metrics "$BUILD/known_metrics.txt" "${EXTRA_METRICS[@]}")"
    local ncu_main=(ncu --clock-control none --metrics "$main_list" --export "$OUT/ncu_main" --force-overwrite
                    "$BUILD/microbench")
    echo "ncu_main_command: ${ncu_main[*]}" >> "$OUT/versions.txt"

    step "ncu main: ${ncu_main[*]}"
    if ! timeout 200 "${ncu_main[@]}"; then
        echo "ncu main exited non-zero"
        if [ ! -s "$OUT/ncu_main.ncu-rep" ]; then
            # A metric name this ncu rejects fails the whole run: retry with the DESIGN contract's 12 alone.
            local core
            core="$(IFS=,; echo "${MAIN_METRICS[*]:0:12}")"
            ncu_main=(ncu --clock-control none --metrics "$core" --export "$OUT/ncu_main" --force-overwrite
                      "$BUILD/microbench")
            echo "ncu_main_command: ${ncu_main[*]}" >> "$OUT/versions.txt"
            step "ncu main, retry with the contract metrics: ${ncu_main[*]}"
            timeout 150 "${ncu_main[@]}" || echo "ncu main retry exited non-zero"
        fi
        rc=1
    fi
    if [ -s "$OUT/ncu_main.ncu-rep" ]; then
        ncu --import "$OUT/ncu_main.ncu-rep" --csv --page raw --print-units base > "$OUT/ncu_main.csv" 2>&1
        echo "ncu_main.csv: $(wc -l < "$OUT/ncu_main.csv") lines"
        python3 "$HERE/parse.py" --csv "$OUT/ncu_main.csv" --versions "$OUT/versions.txt" \
            -o "$BUILD/results.json" --summary || true
    else
        echo "no ncu_main.ncu-rep"
        rc=1
    fi

    step "compute-sanitizer: misaligned float4 shared read, race without __syncthreads"
    {
        echo "##### compute-sanitizer --tool memcheck misaligned"
        timeout 60 compute-sanitizer --tool memcheck "$BUILD/misaligned"; echo "exit: $?"
        echo "##### plain run: misaligned"
        timeout 30 "$BUILD/misaligned"; echo "exit: $?"
        echo "##### compute-sanitizer --tool racecheck race 64 64"
        timeout 90 compute-sanitizer --tool racecheck "$BUILD/race" 64 64; echo "exit: $?"
        echo "##### compute-sanitizer --tool racecheck race 33 45"
        timeout 90 compute-sanitizer --tool racecheck "$BUILD/race" 33 45; echo "exit: $?"
        echo "##### plain runs: race"
        for shape in "64 64" "33 45" "1024 1024" "4096 4096"; do timeout 30 "$BUILD/race" $shape; done
        echo "##### compute-sanitizer --tool racecheck --racecheck-report hazard race 32 32 (first 400 lines, then the tail)"
        timeout 90 compute-sanitizer --tool racecheck --racecheck-report hazard "$BUILD/race" 32 32 \
            > "$BUILD/hazard.txt" 2>&1; echo "exit: $?"
        head -400 "$BUILD/hazard.txt"; echo "[... $(wc -l < "$BUILD/hazard.txt") lines in all ...]"; tail -40 "$BUILD/hazard.txt"
        echo "hazard lines: $(grep -c 'hazard' "$BUILD/hazard.txt")"
    } > "$OUT/sanitizer.txt" 2>&1
    grep -E "#####|Invalid|misaligned|RACECHECK SUMMARY|ERROR SUMMARY|outputs wrong|exit:" "$OUT/sanitizer.txt" | head -60

    if [ "$SECONDS" -lt 420 ]; then
        local ncu_extra=(ncu --clock-control none --metrics "$extra_list" --export "$BUILD/ncu_extra"
                         --force-overwrite "$BUILD/microbench")
        echo "ncu_extra_command: ${ncu_extra[*]}" >> "$OUT/versions.txt"
        step "ncu extra: ${ncu_extra[*]}"
        if timeout 150 "${ncu_extra[@]}" > "$BUILD/ncu_extra.log" 2>&1 && [ -s "$BUILD/ncu_extra.ncu-rep" ]; then
            ncu --import "$BUILD/ncu_extra.ncu-rep" --csv --page raw --print-units base > "$OUT/ncu_extra.csv" 2>&1
            echo "ncu_extra.csv: $(wc -l < "$OUT/ncu_extra.csv") lines"
        else
            echo "ncu extra failed; its log tail:"; tail -20 "$BUILD/ncu_extra.log"
        fi
    else
        echo "skipping ncu extra (${SECONDS}s elapsed)"
    fi

    if [ "$SECONDS" -lt 450 ]; then
        step "compute-sanitizer over microbench (memcheck, racecheck): expect no errors and no hazards"
        {
            echo "##### compute-sanitizer --tool memcheck microbench"
            timeout 60 compute-sanitizer --tool memcheck "$BUILD/microbench" | tail -5; echo "exit: ${PIPESTATUS[0]}"
            echo "##### compute-sanitizer --tool racecheck microbench"
            # Whole report, less the program's own launch/check lines, so a hazard names its kernel.
            timeout 90 compute-sanitizer --tool racecheck --print-limit 1000 "$BUILD/microbench" \
                | grep -vE '^(launch|check|buffer|c_rand|device:)'; echo "exit: ${PIPESTATUS[0]}"
        } >> "$OUT/sanitizer.txt" 2>&1
        tail -14 "$OUT/sanitizer.txt"
    fi

    step "done, rc=$rc"
    ls -la "$OUT"
    return $rc
}

main 2>&1 | tee "$OUT/run.log"
status=${PIPESTATUS[0]}
rm -rf "$BUILD"
exit "$status"
