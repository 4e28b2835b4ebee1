#!/usr/bin/env bash
# Run on the H200 machine from the repo root (device tool): compile, profile every launch, parse.
set -uo pipefail
D=measurements/h200/patterns
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
METRICS=$(python3 -c "import sys; sys.path.insert(0, '$D'); import patterns; print(','.join(patterns.METRICS))")
nvcc -arch=sm_90 -O3 -std=c++17 -o /tmp/patterns $D/patterns.cu 2>&1 | tee "$OUT/build.log"
ncu --version > "$OUT/versions.txt"; nvidia-smi --query-gpu=name,driver_version --format=csv >> "$OUT/versions.txt"
timeout 540 ncu --clock-control none --metrics "$METRICS" --csv --page raw /tmp/patterns $D/patterns.txt \
  > "$OUT/patterns_ncu.csv" 2> "$OUT/ncu_stderr.txt"
echo "ncu exit $?"
cuobjdump -sass /tmp/patterns | grep -E "LDS|STS|LDG|Function" > "$OUT/patterns_sass.txt" 2>/dev/null || true
python3 $D/patterns.py parse "$OUT/patterns_ncu.csv" && cp $D/results.json "$OUT/"
