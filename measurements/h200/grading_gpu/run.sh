set -x
cd .devkit/h10
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -2
python3 -m pip install -q --no-index --find-links wheels --target site greenlet tree-sitter tree-sitter-cuda nbformat 2>&1 | tail -3
export PYTHONPATH=$PWD/site:$PWD/repo
cd repo
python3 -c "import labsim.cuda, grading.gpu; print(grading.gpu.status())"
CMD="python3 -m grading grade --exercise lesson09 --gpu --nvcc on --no-progress --jobs 8 --out /tmp/g -- tests/grading/submissions/lesson09/*.cu"
t0=$(date +%s); $CMD 2>&1 | tee $OUT/grade_stdout.txt | tail -30; echo "wall $(( $(date +%s)-t0 )) s"
META=$(python3 -c "import json,subprocess as s,datetime;print(json.dumps({'gpu':s.run(['nvidia-smi','--query-gpu=name','--format=csv,noheader'],capture_output=True,text=True).stdout.strip(),'driver':s.run(['nvidia-smi','--query-gpu=driver_version','--format=csv,noheader'],capture_output=True,text=True).stdout.strip(),'nvcc':s.run(['nvcc','--version'],capture_output=True,text=True).stdout.strip().splitlines()[-1],'date':datetime.datetime.utcnow().isoformat()+'Z','command':'$CMD'}))")
python3 ../summarize.py /tmp/g "$META" $OUT/grade_gpu_lesson09.json
tar czf $OUT/grade_out.tar.gz -C /tmp g
