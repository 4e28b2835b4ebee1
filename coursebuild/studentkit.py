"""The student hand-out: exercise notebooks plus an installable copy of what they import.

``_site/notebooks/`` becomes a folder a student can take home: the exercise-branch notebooks, the packages the
lessons import (labsim, figures, and grading's *student build*: public checks only, no hidden checks, rubric,
solution or instructor secret), a minimal ``pyproject.toml`` with the same run-time requirements as the
course, and a README in Chinese. ``pip install .`` in that folder, then open the notebooks in Jupyter.
"""
from __future__ import annotations

import gzip
import json
import shutil
import tomllib
import zipfile
from pathlib import Path

PACKAGES = ("labsim", "figures")
KIT_DATA = "_kitdata"                       # figures/_kitdata/: what figures reads from outside itself in the repo
DIST_NAME = "cuda-memory-course-student"
ARCHIVE = "cuda-memory-course-kit.zip"      # in the student site's root (the exercise branch)
ARCHIVE_FOLDER = "cuda-memory-course-kit"   # the one folder the archive unpacks to

README = """# CUDA 访存课程：学生包

这个文件夹里有练习版 notebook（`lessons/`）和运行它们所需的 Python 包（labsim 模拟器、画图用的 figures、
只含公开检查的 grading）。不需要 GPU。

```bash
python3 -m venv .venv && . .venv/bin/activate
pip install .          # 安装 labsim、figures、grading（学生版）及其依赖（含 JupyterLab、ipywidgets、ipykernel）
jupyter lab lessons/
```

H200 的实测记录（Nsight Compute 计数器、计时、compute-sanitizer 报告的解析结果）随 figures 包一起安装，
课里的 H200 对照表在本机也能显示。

每课的检查单元会在模拟器上运行你写的 CUDA 代码，并打印结论、逐行计数器和一张"回执"。
提交时保留检查单元的输出，不要手改。
"""


def has_kit(root: Path) -> bool:
    """Whether ``root`` holds the packages a kit is made of (a test fixture course does not)."""
    return all((root / pkg).is_dir() for pkg in PACKAGES + ("grading",))


def _package_data(kit: Path) -> dict[str, list[str]]:
    """Every file of the kit's packages that is not a module of a package, as setuptools package-data of the package
    that holds it (``{"figures": ["_kitdata/h200.json.gz", "data/harris_2013.json", "static_explorer.js"]}``):
    a non-editable install then carries everything the copied folders carry, data folders without an
    ``__init__.py`` included."""
    out: dict[str, list[str]] = {}
    for top in PACKAGES + ("grading",):
        for p in sorted((kit / top).rglob("*")):
            rel = p.relative_to(kit)
            module = p.suffix == ".py" and (p.parent / "__init__.py").is_file()   # setuptools ships those itself
            if not p.is_file() or module or p.suffix == ".pyc" or "__pycache__" in rel.parts:
                continue
            pkg = p.parent
            while not (pkg / "__init__.py").is_file():
                pkg = pkg.parent
            out.setdefault(".".join(pkg.relative_to(kit).parts), []).append(p.relative_to(pkg).as_posix())
    return out


def write_kit_data(root: Path, figures_dir: Path) -> list[str]:
    """Files the kit's figures package reads instead of the repo's (``figures/_kitdata/``, package data read with
    importlib.resources): the parsed H200 recordings and the P2 script. Returns log lines with their sizes."""
    from figures import p2, recordings     # the copy in this checkout: same code as the kit's
    bundle = recordings.write_bundle(figures_dir, root / "measurements" / "h200")
    script = figures_dir / p2.SCRIPT_DATA
    shutil.copyfile(root / p2.SCRIPT, script)
    raw = len(gzip.decompress(bundle.read_bytes()))
    return [f"wrote {bundle.relative_to(figures_dir.parent)} ({bundle.stat().st_size / 1024:.0f} KiB gzipped, "
            f"{raw / 1024:.0f} KiB of JSON: {', '.join(recordings.KIT)})",
            f"copied {p2.SCRIPT} -> {script.relative_to(figures_dir.parent)}"]


def make_student_kit(root: Path, hand_out: Path) -> list[str]:
    """Add the packages, pyproject.toml and README to ``hand_out`` (which already holds the notebooks).

    A project without the course packages (a test fixture course) gets no kit: returns an empty log.
    """
    if not has_kit(root):
        return []
    from grading.studentbuild import build as grading_student_build   # instructor tool, present in the repo

    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", KIT_DATA)
    for pkg in PACKAGES:
        shutil.rmtree(hand_out / pkg, ignore_errors=True)
        shutil.copytree(root / pkg, hand_out / pkg, ignore=ignore)
    log = write_kit_data(root, hand_out / "figures")
    with open(root / "pyproject.toml", "rb") as f:
        deps = tomllib.load(f)["project"]["dependencies"]
    lines = ["[build-system]", 'requires = ["setuptools>=68"]', 'build-backend = "setuptools.build_meta"', "",
             "[project]", f'name = "{DIST_NAME}"', 'version = "0.1.0"',
             'requires-python = ">=3.11"', "dependencies = ["] + [f'    "{d}",' for d in deps] + \
            ["]", "", "[tool.setuptools]",
             'packages = { find = { include = ["labsim*", "figures*", "grading*"] } }', "",
             "[tool.setuptools.package-data]"] + \
            ["{package_data}", ""]
    (hand_out / "README.md").write_text(README, encoding="utf-8")
    # grading's student build ends with its own verify, which scans the whole kit for answers
    shutil.rmtree(hand_out / "grading", ignore_errors=True)
    ctx = grading_student_build(hand_out)
    data = "\n".join(f'"{k}" = [{", ".join(json.dumps(g) for g in v)}]' for k, v in _package_data(hand_out).items())
    (hand_out / "pyproject.toml").write_text("\n".join(lines).replace("{package_data}", data), encoding="utf-8")
    return log + ctx.log


def make_archive(hand_out: Path, dest: Path) -> Path:
    """Zip ``hand_out`` (the kit) as ``dest``, every file under one top folder :data:`ARCHIVE_FOLDER`, so that
    ``unzip`` gives one folder and ``pip install <zip>`` installs it. Entries are sorted, dated 1980-01-01:
    the same kit gives the same bytes."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".zip.part")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for p in sorted(hand_out.rglob("*")):
            rel = p.relative_to(hand_out)
            if not p.is_file() or {"__pycache__", ".ipynb_checkpoints"} & set(rel.parts) or p.suffix == ".pyc":
                continue
            info = zipfile.ZipInfo(f"{ARCHIVE_FOLDER}/{rel.as_posix()}", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, p.read_bytes())
    tmp.replace(dest)
    return dest
