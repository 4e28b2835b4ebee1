"""Collect grade --gpu's instructor records into one JSON (what the H200 run found)."""
import json, sys, pathlib
out = pathlib.Path(sys.argv[1]); meta = json.loads(sys.argv[2])
rows = []
for f in sorted((out / "_instructor").glob("*.json")):
    d = json.loads(f.read_text())
    g = d.get("gpu", {"status": "absent"})
    rows.append({"submission": d["submission"], "verdict": d["verdict"], "score": d["score"],
                 "gpu_status": g.get("status"), "gpu_message": g.get("message"),
                 "cases": [{k: c[k] for k in ("case", "labsim", "gpu", "message")} for c in g.get("cases", [])],
                 "disagreements": g.get("disagreements", [])})
ran = [r for r in rows if r["gpu_status"] == "ran"]
summary = {"meta": meta, "submissions": len(rows), "ran_on_gpu": len(ran),
           "cases_compared": sum(len(r["cases"]) for r in ran),
           "disagreements": sum(len(r["disagreements"]) for r in rows), "records": rows}
print(json.dumps({k: v for k, v in summary.items() if k != "records"}, indent=1))
for r in rows:
    print(r["submission"], r["verdict"], r["gpu_status"], len(r["cases"]), "disagree:", len(r["disagreements"]), r["gpu_message"] or "")
(pathlib.Path(sys.argv[3])).write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
