"""environment.yml and the pip requirements (pyproject.toml) must list the same packages."""
from __future__ import annotations

import os
import re
import tomllib

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# conda-forge names that differ from PyPI's, and the conda-only entries
CONDA_TO_PIP = {"quarto": "quarto-cli"}
CONDA_ONLY = {"python", "pip"}


def _name(spec: str) -> str:
    return re.split(r"[<>=!~ \[]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_matches_pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        proj = tomllib.load(f)["project"]
    pip_names = {_name(s) for s in proj["dependencies"]}
    for extra in proj["optional-dependencies"].values():
        pip_names |= {_name(s) for s in extra}
    with open(os.path.join(ROOT, "environment.yml"), encoding="utf-8") as f:
        env = yaml.safe_load(f)
    conda = set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            conda |= {_name(s) for s in dep["pip"] if not s.startswith("-")}
        else:
            conda.add(_name(dep))
    conda = {CONDA_TO_PIP.get(n, n) for n in conda - CONDA_ONLY}
    assert conda == pip_names, f"only in environment.yml: {conda - pip_names}; only in pyproject: {pip_names - conda}"


def test_lower_bounds_agree():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        proj = tomllib.load(f)["project"]
    specs = list(proj["dependencies"]) + [s for e in proj["optional-dependencies"].values() for s in e]
    pins = {_name(s): s.split(">=")[1] for s in specs if ">=" in s}
    with open(os.path.join(ROOT, "environment.yml"), encoding="utf-8") as f:
        text = f.read()
    for name, low in pins.items():
        conda_name = {v: k for k, v in CONDA_TO_PIP.items()}.get(name, name)
        assert re.search(rf"-\s*{re.escape(conda_name)}>={re.escape(low)}\b", text), f"{name}>={low} not in environment.yml"
