#!/usr/bin/env bash
# H200 measurements, second round (issue 16 items 1-3, lesson 10's GEMMs, issue 17's classes, P2's patterns),
# in one device call. From the repo root on the GPU machine:
#
#     bash measurements/h200/round2.sh          # H=<dir> to read the sources from a copy of measurements/h200
#
# Writes to $OUT: round2.log (this log) and round2.tar.gz (every raw file, listed in README.md "Round 2").
# Then, here: tar xzf round2.tar.gz -C measurements/h200/ && .venv/bin/python measurements/h200/round2_parse.py
# Every step is time-boxed and logs and carries on after a failure; optional steps are skipped late in the run.
set -u
H="${H:-measurements/h200}"
OUT="${OUT:-/tmp/h200_out}"
R="$(mktemp -d /tmp/round2.XXXXXX)/raw2"      # becomes raw2/ inside the tarball
B="$(mktemp -d /tmp/round2_build.XXXXXX)"
mkdir -p "$OUT" "$R"/{bandwidth,gemm,classes,p2,racecheck,n8192}
NVCC=(nvcc -arch=sm_90 -O3 -lineinfo)
NCU=(ncu --clock-control none)
step() { echo; echo "=== [$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
late() { [ "$SECONDS" -gt "$1" ] && { echo "SKIPPED (${SECONDS}s elapsed > $1): $2"; return 0; }; return 1; }

filter_metrics() {   # keep names whose base `ncu --query-metrics` lists (all if the list is empty)
    local kept=() m
    for m in "$@"; do
        if [ ! -s "$B/known.txt" ] || grep -qE "^${m%.*}([[:space:]]|$)" "$B/known.txt"; then kept+=("$m");
        else echo "dropped unknown metric: $m" >&2; fi
    done
    local IFS=,; echo "${kept[*]}"
}

# ncu NAME METRICS CMD...: profile every launch of CMD, export NAME.ncu-rep, raw CSV NAME.csv (time-boxed)
ncu_run() {
    local name="$1" metrics="$2" tmo="$3"; shift 3
    echo "ncu_command[$name]: ${NCU[*]} --metrics $metrics --export $name $*" | tee -a "$R/commands.txt"
    timeout "$tmo" "${NCU[@]}" --metrics "$metrics" --export "$R/$name" --force-overwrite "$@" > "$R/$name.log" 2>&1
    echo "exit $?"; tail -3 "$R/$name.log"
    [ -s "$R/$name.ncu-rep" ] && ncu --import "$R/$name.ncu-rep" --csv --page raw --print-units base > "$R/$name.csv" 2>&1 \
        && echo "$name.csv: $(wc -l < "$R/$name.csv") lines"
}

main() {
    step "versions"
    {
        echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "command: H=$H bash measurements/h200/round2.sh"
        echo "nvcc_flags: ${NVCC[*]:1}"
        echo "host: $(uname -srm)"
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,persistence_mode,power.limit --format=csv 2>&1
        echo "--- ncu --version"; ncu --version 2>&1
        echo "--- nvcc --version"; nvcc --version 2>&1
        echo "--- compute-sanitizer --version"; compute-sanitizer --version 2>&1
        echo "--- torch"; timeout 60 python3 -c "import torch; print(torch.__version__, torch.version.cuda)" 2>&1
    } > "$R/versions.txt"
    cat "$R/versions.txt"

    step "compile (parallel)"
    "${NVCC[@]}" -o "$B/bandwidth" "$H/bandwidth/bandwidth.cu" > "$B/c1.log" 2>&1 &
    ( "${NVCC[@]}" -DHAVE_CUBLAS -o "$B/gemm_bench" "$H/gemm/gemm_bench.cu" -lcublas > "$B/c2.log" 2>&1 \
      || { echo "cuBLAS build failed, building without"; "${NVCC[@]}" -o "$B/gemm_bench" "$H/gemm/gemm_bench.cu"; } ) >> "$B/c2.log" 2>&1 &
    "${NVCC[@]}" -o "$B/classes" "$H/classes/classes.cu" > "$B/c3.log" 2>&1 &
    "${NVCC[@]}" -o "$B/p2" "$H/p2/p2.cu" > "$B/c4.log" 2>&1 &
    "${NVCC[@]}" -o "$B/race" "$H/race.cu" > "$B/c5.log" 2>&1 &
    wait
    cat "$B"/c*.log; ls -la "$B"
    for p in bandwidth gemm_bench classes p2 race; do
        [ -x "$B/$p" ] && cuobjdump -sass "$B/$p" > "$R/sass_$p.txt" 2>&1
    done

    step "ncu --query-metrics"
    timeout 60 ncu --query-metrics > "$B/query.txt" 2>&1
    grep -E '^[a-z0-9]+__[A-Za-z0-9_]+' "$B/query.txt" > "$B/known.txt"; wc -l < "$B/known.txt"

    local BW_METRICS CORE EXTRA
    BW_METRICS="$(filter_metrics dram__bytes_read.sum dram__bytes_write.sum gpu__time_duration.sum \
        l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
        l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum \
        lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum \
        smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum \
        l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum \
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
        smsp__sass_inst_executed_op_shared_ld.sum sm__warps_active.avg.pct_of_peak_sustained_active \
        sm__cycles_elapsed.avg.per_second dram__cycles_elapsed.avg.per_second launch__occupancy_limit_shared_mem \
        launch__waves_per_multiprocessor)"
    CORE="$(filter_metrics l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
        l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum \
        smsp__inst_executed_op_global_ld.sum smsp__inst_executed_op_global_st.sum \
        smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum \
        l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum \
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
        l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum l1tex__t_requests_pipe_lsu_mem_global_op_red.sum)"
    EXTRA="$(filter_metrics smsp__inst_executed.sum smsp__inst_executed_op_global_ld_pred_on_any.sum \
        smsp__inst_executed_op_global_ld_pred_off_all.sum smsp__inst_executed_op_shared_ld_pred_on_any.sum \
        smsp__inst_executed_op_shared_ld_pred_off_all.sum smsp__sass_inst_executed_op_global_ld.sum \
        smsp__sass_inst_executed_op_global_st.sum smsp__sass_inst_executed_op_shared_ld.sum \
        smsp__sass_inst_executed_op_shared_st.sum smsp__sass_inst_executed_op_global_atom.sum \
        smsp__sass_inst_executed_op_global_red.sum smsp__inst_executed_op_generic_atom.sum \
        l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum \
        smsp__inst_executed_op_shared_atom.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum \
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum smsp__inst_executed_op_global_st_pred_on_any.sum)"

    step "1. bandwidth: time 1024 and 8192 (30 timed runs after 5 warm-ups)"
    for n in 1024 8192; do timeout 120 "$B/bandwidth" time "$n" 30 | tee -a "$R/bandwidth/timing.jsonl"; done

    step "1. bandwidth: ncu (dram bytes etc.), 1024 and 8192"
    local ALL=copy,copy_restrict,transpose_naive,transpose_naive_colread,transpose_tiled_pad0,transpose_tiled_pad1,transpose_tiled_swizzle,transpose_tiled_pad0_noload,transpose_tiled_pad1_noload
    for n in 1024 8192; do ncu_run "bandwidth/ncu_bw_$n" "$BW_METRICS" 120 "$B/bandwidth" once "$ALL" "$n"; done

    step "4. GEMM: check and ncu at 64^3 and 70x45x33"
    for s in "64 64 64" "70 45 33"; do timeout 60 "$B/gemm_bench" check $s | tee -a "$R/gemm/check.jsonl"; done
    ncu_run gemm/ncu_gemm_64 "$CORE" 90 "$B/gemm_bench" check 64 64 64
    ncu_run gemm/ncu_gemm_70x45x33 "$CORE" 90 "$B/gemm_bench" check 70 45 33
    ncu_run gemm/ncu_gemm_64_extra "$EXTRA" 90 "$B/gemm_bench" check 64 64 64

    step "4. GEMM: time 4096^3 (20 runs), cuBLAS"
    timeout 150 "$B/gemm_bench" time 4096 4096 4096 20 | tee "$R/gemm/timing_4096.jsonl"
    timeout 90 python3 - <<'PY' 2>&1 | tee "$R/gemm/torch_4096.jsonl"
import json, torch
torch.backends.cuda.matmul.allow_tf32 = False
n = 4096
a = torch.rand(n, n, device="cuda") - 0.5; b = torch.rand(n, n, device="cuda") - 0.5
for _ in range(3): a @ b
torch.cuda.synchronize()
ms = []
for _ in range(20):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); a @ b; e.record(); e.synchronize(); ms.append(s.elapsed_time(e))
print(json.dumps({"name": "torch_matmul_fp32_no_tf32", "M": n, "N": n, "K": n, "flop": 2.0 * n ** 3,
                  "torch": torch.__version__, "ms": ms}))
PY

    step "2. racecheck: transpose without the barrier"
    for s in "32 32" "64 64" "33 45" "96 96"; do
        f="$R/racecheck/transpose_analysis_${s// /x}.txt"
        echo "# compute-sanitizer --tool racecheck --print-limit 0 race $s" > "$f"
        timeout 60 compute-sanitizer --tool racecheck --print-limit 0 "$B/race" $s >> "$f" 2>&1; echo "exit: $?" >> "$f"
        tail -2 "$f"
    done
    for s in "32 32" "64 64" "33 45"; do
        f="$R/racecheck/transpose_hazard_${s// /x}.txt"
        echo "# compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 0 race $s" > "$f"
        timeout 90 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 0 "$B/race" $s >> "$f" 2>&1
        echo "exit: $?" >> "$f"; grep "RACECHECK SUMMARY" "$f"
    done

    step "2. racecheck: GEMM without the first / the second barrier"
    for k in gemm_tiled16_nosync1 gemm_tiled16_nosync2; do
        for s in "32 32 32" "64 64 64"; do
            f="$R/racecheck/${k}_analysis_${s// /x}.txt"
            echo "# compute-sanitizer --tool racecheck --print-limit 0 gemm_bench race $k $s" > "$f"
            timeout 90 compute-sanitizer --tool racecheck --print-limit 0 "$B/gemm_bench" race $k $s >> "$f" 2>&1
            echo "exit: $?" >> "$f"; tail -3 "$f"
            f="$R/racecheck/${k}_hazard_${s// /x}.txt"
            echo "# compute-sanitizer --tool racecheck --racecheck-report hazard gemm_bench race $k $s (default print limit)" > "$f"
            timeout 90 compute-sanitizer --tool racecheck --racecheck-report hazard "$B/gemm_bench" race $k $s >> "$f" 2>&1
            echo "exit: $?" >> "$f"; grep "RACECHECK SUMMARY" "$f"
        done
        f="$R/racecheck/${k}_hazard_full_16x16x32.txt"
        echo "# compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 0 gemm_bench race $k 16 16 32" > "$f"
        timeout 120 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 0 "$B/gemm_bench" race $k 16 16 32 >> "$f" 2>&1
        echo "exit: $?" >> "$f"; grep "RACECHECK SUMMARY" "$f"
        for s in "64 64 64" "256 256 256"; do timeout 30 "$B/gemm_bench" race $k $s | tee -a "$R/racecheck/gemm_plain_runs.jsonl"; done
    done
    for s in "64 64" "1024 1024" "8192 8192"; do timeout 30 "$B/race" $s | tee -a "$R/racecheck/transpose_plain_runs.txt"; done

    step "5/6. issue 17 classes and P2 patterns: ncu (core + extra)"
    timeout 30 "$B/classes" > "$R/classes/run.log" 2>&1; tail -1 "$R/classes/run.log"
    timeout 30 "$B/p2" > "$R/p2/run.log" 2>&1; tail -1 "$R/p2/run.log"
    ncu_run classes/ncu_classes "$CORE" 120 "$B/classes"
    ncu_run p2/ncu_p2 "$CORE" 90 "$B/p2"
    late 400 "classes extra pass" || ncu_run classes/ncu_classes_extra "$EXTRA" 120 "$B/classes"

    step "3. N = 8192 excess: sizes, occupancy, per-instruction source counters"
    late 430 "n8192 sizes" || for n in 2048 4096; do
        ncu_run "n8192/ncu_size_$n" "$BW_METRICS" 60 "$B/bandwidth" once transpose_tiled_pad0,transpose_tiled_pad1,transpose_tiled_swizzle,transpose_tiled_pad0_noload,transpose_tiled_pad1_noload "$n"
    done
    # 100 KB of dynamic shared memory per block: at most 2 blocks per SM (228 KB per SM on the H200).
    late 460 "n8192 occupancy" || ncu_run n8192/ncu_occ2_8192 "$BW_METRICS" 60 "$B/bandwidth" once transpose_tiled_pad0,transpose_tiled_pad1,transpose_tiled_pad1_noload 8192 102400
    late 480 "n8192 source counters" || {
        echo "ncu_command[n8192/src]: ${NCU[*]} --section SourceCounters --import-source yes -k regex:transpose_tiled_pad --export n8192/src bandwidth once transpose_tiled_pad0,transpose_tiled_pad1 8192" >> "$R/commands.txt"
        timeout 90 "${NCU[@]}" --section SourceCounters --import-source yes -k regex:transpose_tiled_pad \
            --export "$R/n8192/src" --force-overwrite "$B/bandwidth" once transpose_tiled_pad0,transpose_tiled_pad1 8192 \
            > "$R/n8192/src.log" 2>&1; echo "exit $?"
        if [ -s "$R/n8192/src.ncu-rep" ]; then
            timeout 30 ncu --import "$R/n8192/src.ncu-rep" --page source --csv --print-source sass > "$R/n8192/src_sass.csv" 2>&1 \
                || timeout 30 ncu --import "$R/n8192/src.ncu-rep" --page source --csv > "$R/n8192/src_sass.csv" 2>&1
            timeout 30 ncu --import "$R/n8192/src.ncu-rep" --page details --print-details all > "$R/n8192/src_details.txt" 2>&1
            wc -l "$R/n8192/src_sass.csv" "$R/n8192/src_details.txt"
        fi
    }
    step "done"
}

main 2>&1 | tee "$R/round2.log"
cp "$R/round2.log" "$OUT/round2.log"
tar czf "$OUT/round2.tar.gz" -C "$(dirname "$R")" raw2
ls -la "$OUT"
