# grade --gpu over the four whole-kernel challenges' corpora (and each reference solution) on the device machine.
# Run from the repository root of a copy of the tree, with wheels for what the device may lack in
# .devkit/gpu29/wheels (greenlet, tree-sitter, tree-sitter-cuda, nbformat and their needs; numpy >= 2 for a
# device whose numpy is older). Writes challenges.json, stdout.txt, env.txt and grade_out.tar.gz under $OUT.
set -x
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -2
python3 --version; python3 -c "import numpy; print('numpy', numpy.__version__)"
PKGS="greenlet tree-sitter tree-sitter-cuda nbformat"
python3 -c "import numpy, sys; sys.exit(int(numpy.__version__.split('.')[0]) < 2)" || PKGS="$PKGS numpy"
python3 -m pip install -q --no-index --no-compile --find-links .devkit/gpu29/wheels --target /tmp/site $PKGS 2>&1 | tail -3
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 GRADING_GPU_TIMEOUT=${GRADING_GPU_TIMEOUT:-20}
python3 -c "import numpy, labsim.cuda, grading.gpu as g; print('numpy', numpy.__version__, g.status(), 'memcheck:', g.find_sanitizer())" 2>&1 | tee $OUT/env.txt
t0=$(date +%s)
for e in p2 lesson08 lesson09 lesson10; do
  ( timeout -k 5 ${GRADE_LIMIT_S:-400} python3 -m grading grade --exercise ${e}_challenge --gpu --nvcc on --no-progress --jobs 4 --time-limit 900 --out /tmp/g/$e \
      -- tests/grading/submissions/${e}_challenge/*.cu grading/exercises/${e}_challenge/solution.cu \
      > /tmp/g_$e.txt 2>&1; echo "$e exit $? after $(( $(date +%s)-t0 )) s" >> /tmp/g_$e.txt ) &
done
wait
echo "wall $(( $(date +%s)-t0 )) s"
for e in p2 lesson08 lesson09 lesson10; do echo "=== ${e}_challenge"; cat /tmp/g_$e.txt; done | tee $OUT/stdout.txt | tail -60
python3 measurements/h200/grading_gpu/summarize_challenges.py /tmp/g $OUT/challenges.json \
  "GRADING_GPU_TIMEOUT=$GRADING_GPU_TIMEOUT python3 -m grading grade --exercise <e>_challenge --gpu --nvcc on --no-progress --jobs 4 --time-limit 900 --out /tmp/g/<e> -- tests/grading/submissions/<e>_challenge/*.cu grading/exercises/<e>_challenge/solution.cu (the four at once)"
tar czf $OUT/grade_out.tar.gz -C /tmp g
