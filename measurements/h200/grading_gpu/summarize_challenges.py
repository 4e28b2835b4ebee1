"""Collect grade --gpu's instructor records of the four challenges into one JSON (what the H200 run found).

Usage: summarize_challenges.py OUT_ROOT RESULT.json COMMAND: OUT_ROOT/<lesson>/_instructor/*.json per challenge."""
import datetime
import json
import pathlib
import subprocess
import sys


def sh(*argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout.strip()
    except OSError:
        return ""


root, dest, command = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
meta = {"gpu": sh("nvidia-smi", "--query-gpu=name", "--format=csv,noheader"),
        "driver": sh("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"),
        "nvcc": (sh("nvcc", "--version").splitlines() or [""])[-1],
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "command": command}
out = {"meta": meta, "challenges": {}}
for lesson in ("p2", "lesson08", "lesson09", "lesson10"):
    rows = []
    for f in sorted((root / lesson / "_instructor").glob("*.json")):
        d = json.loads(f.read_text())
        g = d.get("gpu", {"status": "absent"})
        rows.append({"submission": d["submission"], "verdict": d["verdict"], "score": d["score"],
                     "gpu_status": g.get("status"), "gpu_message": g.get("message"),
                     "cases": [{k: c.get(k) for k in ("case", "labsim", "gpu", "message", "ran", "memcheck", "race",
                                                      "seconds")} for c in g.get("cases", [])],
                     "disagreements": g.get("disagreements", [])})
    ran = [r for r in rows if r["gpu_status"] == "ran"]
    cases = [c for r in ran for c in r["cases"]]
    out["challenges"][f"{lesson}_challenge"] = {
        "submissions": len(rows), "ran_on_gpu": len(ran), "cases": len(cases),
        "cases_run_natively": sum(bool(c["ran"]) for c in cases),
        "cases_compared": sum(bool(c["ran"]) and c["labsim"] is not None and not c["race"] for c in cases),
        "gpu_seconds": round(sum(c["seconds"] or 0 for c in cases), 1),
        "disagreements": sum(len(r["disagreements"]) for r in rows), "records": rows}
    print(lesson, {k: v for k, v in out["challenges"][f"{lesson}_challenge"].items() if k != "records"})
    for r in rows:
        print(" ", r["submission"], r["verdict"], r["gpu_status"], len(r["cases"]), "disagree:",
              len(r["disagreements"]), (r["gpu_message"] or "")[:200], *r["disagreements"])
dest.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
