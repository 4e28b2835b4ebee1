"""The whole build: lessons -> branch ``.qmd`` + notebooks -> executed notebooks -> site.

Layout (relative to the project root):

``_build/<branch>/``            Quarto project of the branch: ``_quarto*.yml``, the branch ``.qmd`` of every
                                page, the student notebook ``.ipynb`` next to it, lesson resources
``_build/executed/<branch>/``   the executed notebooks the fallback pages are made from
``_build/vendor/``              npm cache of Mermaid and MathJax (``npm pack``)
``_site/answer/``, ``_site/exercise/``  the two sites (each page's notebook next to its ``.html``)
``_site/notebooks/``            the student hand-out: exercise notebooks and the files they use
``_site/index.html``            a landing page; ``_site/build-info.json``: renderer, time, input digest
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import html
import json
import os
import resource
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import nbformat

from .context import BRANCHES, BuildContext
from .execute import ensure_kernel, execute_notebook
from .html import PageRenderer, install_assets
from .lang import UI
from .leaks import (exercise_fills, fill_patterns, hidden_snippets, public_code, scan_for_fills, scan_for_leaks,
                    shipped_files)
from .notebook import to_notebook
from .qmd import Cell, Document, iter_nodes, read_qmd, write_qmd
from .quarto import find_quarto, quarto_version, render_branch
from .site import Site, load_site
from .studentkit import ARCHIVE, has_kit, make_archive, make_student_kit
from .transforms import NOTEBOOK_PIPELINE, SOURCE_PIPELINE, run_pipeline
from .transforms.guard_leaks import LeakError
from .vendor import ensure_vendor, install_for_quarto, install_vendor

# measurements/: the H200 recordings that lessons' tables and figures show (figures.recordings)
DIGEST_GLOBS = ("_quarto*.yml", "index.qmd", "lessons/**/*", "labsim/**/*", "figures/**/*", "grading/**/*",
                "assets/**/*", "measurements/**/*", "pyproject.toml")
_SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".hypothesis"}


class BuildError(RuntimeError):
    """A build step failed in a way the author can fix; the message says what and where."""


@dataclass
class BuildReport:
    """What a build did: renderer, timings, vendored scripts, pages."""

    renderer: str
    renderer_detail: str
    seconds: float
    pages: list[str]
    branches: tuple[str, ...]
    timings: dict[str, float] = field(default_factory=dict)
    vendored: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)   # the renderer's warnings ("<branch>: <message>")
    cpu_seconds: float = 0.0   # CPU time of the build and the processes it waited for (Quarto, kernels)

    def __repr__(self) -> str:
        return f"BuildReport(renderer={self.renderer!r}, {len(self.pages)} pages, {self.seconds:.1f} s)"


def _cpu_seconds() -> float:
    """CPU seconds of this process and its finished children: a build time that other load cannot inflate."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def inputs_digest(root: Path) -> str:
    """SHA-256 over every input of the site (sources, build code, simulator), for staleness checks."""
    h = hashlib.sha256()
    files: dict[str, Path] = {}
    here = Path(__file__).parent  # the build code itself, wherever the project is
    for base, pattern in [(root, g) for g in DIGEST_GLOBS] + [(here.parent, "coursebuild/**/*")]:
        for p in base.glob(pattern):
            if p.is_file() and not (_SKIP_PARTS & set(p.parts)) and p.suffix != ".pyc":
                files[str(p.relative_to(base))] = p
    for name, p in sorted(files.items()):
        h.update(name.encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _copy_resources(root: Path, pages: list[str], dest: Path) -> None:
    """Copy non-``.qmd`` files of the page folders (scripts a lesson runs, images) into ``dest``."""
    tops = sorted({p.split("/", 1)[0] for p in pages if "/" in p})
    for top in tops + (["assets"] if (root / "assets").is_dir() else []):
        for src in (root / top).rglob("*"):
            rel = src.relative_to(root)
            if (src.is_file() and src.suffix not in (".qmd", ".ipynb", ".pyc") and not (_SKIP_PARTS & set(rel.parts))
                    and not any(part.startswith(".") for part in rel.parts)):
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, target)


def _nb_key(nb: nbformat.NotebookNode) -> str:
    clone = json.loads(json.dumps(nb))
    clone["metadata"].get("course", {}).pop("branch", None)
    return json.dumps(clone, sort_keys=True)


def _ipynb(page: str) -> str:
    return page[: -len(".qmd")] + ".ipynb"


def _landing(title: str, branches: tuple[str, ...], renderer: str, kit: bool = False) -> str:
    """The instructors' page at ``_site/index.html``: the course's own title (no branch suffix), both branches,
    the student kit's archive, and which folder is published for students (``exercise/``, self-contained)."""
    blurbs = {"exercise": UI["exercise_blurb"], "answer": UI["answer_blurb"]}
    cards = "".join(
        f'<a class="card" href="{b}/index.html"><span class="name">'
        f'{html.escape(UI["answer_branch"] if b == "answer" else UI["exercise_branch"])}</span>'
        f'<span class="blurb">{html.escape(blurbs[b])}</span></a>'
        for b in sorted(branches, key=lambda b: b != "exercise"))
    notebooks = (f'<a class="card" href="exercise/{ARCHIVE}" download><span class="name">{html.escape(UI["notebooks"])}'
                 f'</span><span class="blurb">{html.escape(UI["notebooks_blurb"])}</span></a>') if kit else ""
    return (f'<!DOCTYPE html>\n<html lang="zh"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{LANDING_CSS}</style></head>"
            f'<body><main><h1>{html.escape(title)}</h1><p class="lead">{html.escape(UI["landing_lead"])}</p>'
            f'<nav class="cards">{cards}{notebooks}</nav>'
            f'<p class="publish">{html.escape(UI["landing_publish"])}</p>'
            f'<p class="foot">{html.escape(UI["landing_renderer"].format(renderer=renderer))}</p></main></body></html>\n')


LANDING_CSS = (
    'body{margin:0;font-family:system-ui,-apple-system,"Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;'
    "color:#212529;background:#f4f6f9}main{max-width:46rem;margin:3rem auto;padding:0 1.2rem}"
    "h1{font-size:2rem;margin:0 0 .4rem;color:#2c5d8f}.lead{color:#495057;margin:0 0 1.6rem}"
    ".cards{display:grid;gap:1rem}.card{display:block;padding:1rem 1.2rem;border:1px solid #dee2e6;"
    "border-left:.35rem solid #2c5d8f;border-radius:.4rem;background:#fff;text-decoration:none;color:inherit}"
    ".card:hover{box-shadow:0 2px 8px #0002}.name{display:block;font-weight:700;font-size:1.15rem;color:#2c5d8f}"
    ".blurb{display:block;margin-top:.3rem;color:#495057}.publish{margin-top:1.4rem;padding:.7rem 1rem;"
    "background:#fff8e1;border:1px solid #ffe08a;border-radius:.4rem}.foot{margin-top:2rem;font-size:.8rem;color:#868e96}")


def _kit_link(href: str) -> str:
    return f'[{UI["download_kit"]}]({href}){{download="{ARCHIVE}"}} [{UI["kit_note"]}]{{.course-kit-note}}'


def _with_download_link(qmd_text: str, notebook: str | None, kit_href: str | None = None,
                        home: bool = False) -> str:
    """The Quarto page source with the notebook download link under the title and, on the exercise branch
    (``kit_href``: the student kit's zip relative to the page), the kit link beside it or, on the home page, a
    box with the kit link and the install note (the fallback's template shows the same)."""
    link = (f'::: {{.course-download}}\n[{UI["download_notebook"]}]({notebook}){{download="{notebook}"}}\n:::\n\n'
            if notebook else "")
    if kit_href and notebook:
        link += f"::: {{.course-kit}}\n{_kit_link(kit_href)}\n:::\n\n"
    if kit_href and home:
        link += (f'::: {{.course-kit .course-kit-home}}\n[{UI["kit_home_title"]}]{{.course-kit-title}}\n\n'
                 f'{UI["kit_home"]}\n\n{_kit_link(kit_href)}\n:::\n\n')
    if not link:
        return qmd_text
    if qmd_text.startswith("---\n"):
        end = qmd_text.find("\n---\n", 4)
        if end != -1:
            cut = end + len("\n---\n")
            return qmd_text[:cut] + "\n" + link + qmd_text[cut:].lstrip("\n")
    return link + qmd_text


@contextlib.contextmanager
def _build_lock(root: Path):
    """One build at a time per project: several people (and test sessions) share one working tree."""
    (root / "_build").mkdir(exist_ok=True)
    with open(root / "_build" / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def build(root: Path, **kwargs) -> BuildReport:
    """Build both branches, the student notebooks and the site under ``root``; see the module docstring.

    Keyword arguments: ``branches``, ``renderer`` ("auto", "quarto", "fallback"), ``execute``, ``jobs``,
    ``only`` (pages), ``fail_on_warnings`` (a renderer warning fails the build), ``out`` (write ``_build/``
    and ``_site/`` under this folder instead of ``root``, e.g. a second build with the other renderer),
    ``log`` (a callable taking one line).
    """
    root = root.resolve()
    with _build_lock(root):
        return _build(root, **kwargs)


def _build(root: Path, *, branches: tuple[str, ...] = BRANCHES, renderer: str = "auto", execute: bool = True,
           jobs: int | None = None, only: list[str] | None = None, fail_on_warnings: bool = False,
           out: Path | None = None, log: Callable[[str], None] = print) -> BuildReport:
    t0, cpu0 = time.perf_counter(), _cpu_seconds()
    digest = inputs_digest(root)  # before reading anything: an edit during the build makes this site stale
    if renderer not in ("auto", "quarto", "fallback"):
        raise BuildError(f"unknown renderer {renderer!r} (auto, quarto or fallback)")
    quarto = find_quarto() if renderer in ("auto", "quarto") else None
    if renderer == "quarto" and quarto is None:
        raise BuildError("--renderer quarto: `quarto` is not on PATH (conda: `conda install -c conda-forge "
                         "quarto`; pip: `pip install -e '.[quarto]'`)")
    use_quarto = quarto is not None
    if only and use_quarto:
        raise BuildError("--only works with the fallback renderer (Quarto renders whole projects)")
    sites = {b: load_site(root, b) for b in branches}
    pages = [p for p in sites[branches[0]].pages if not only or p in only]
    if only and len(pages) != len(set(only)):
        raise BuildError(f"--only names pages the site does not build: {sorted(set(only) - set(pages))}")
    docs: dict[str, Document] = {p: read_qmd(root / p, p) for p in pages}
    snippets = hidden_snippets(root)
    answers = fill_patterns(exercise_fills(root), public_code(root))
    kit = "exercise" in branches and has_kit(root)     # the student kit's zip goes into the exercise site
    base = (out or root).resolve()
    build_dir, site_dir = base / "_build", base / "_site"
    report = BuildReport("quarto" if use_quarto else "fallback",
                         f"Quarto {quarto_version(quarto)} ({quarto})" if use_quarto
                         else "Jupyter (nbclient + nbconvert); quarto is not on PATH",
                         0.0, pages, branches)
    log(f"coursebuild: renderer: {report.renderer_detail}")

    # 1. Branch sources and notebooks.
    html_nbs: dict[tuple[str, str], nbformat.NotebookNode] = {}
    for b in branches:
        numbered = bool(((sites[b].config.get("format") or {}).get("html") or {}).get("number-sections", False))
        bdir = build_dir / b
        shutil.rmtree(bdir, ignore_errors=True)
        bdir.mkdir(parents=True)
        for cfg in root.glob("_quarto*.yml"):
            shutil.copyfile(cfg, bdir / cfg.name)
        _copy_resources(root, pages, bdir)
        lessons = sites[b].lessons()
        for p in pages:
            try:
                qdoc = run_pipeline(docs[p], BuildContext(b, None, snippets, lessons=lessons), SOURCE_PIPELINE)
                # Notebooks keep unnumbered headings (their @sec- links show the heading text): the grader
                # finds answers by heading ("### Q1"), and a student's notebook is no numbered page.
                ndoc = run_pipeline(docs[p], BuildContext(b, "ipynb", snippets, number_sections=False,
                                                          lessons=lessons), SOURCE_PIPELINE + NOTEBOOK_PIPELINE)
                hdoc = run_pipeline(docs[p], BuildContext(b, "html", snippets, number_sections=numbered,
                                                          lessons=lessons), SOURCE_PIPELINE + NOTEBOOK_PIPELINE)
            except LeakError as err:
                raise BuildError(f"leak guard: {err}") from None
            (bdir / p).parent.mkdir(parents=True, exist_ok=True)
            text = write_qmd(qdoc)
            if use_quarto:
                has_code = any(isinstance(n, Cell) for n, _ in iter_nodes(qdoc.children))
                text = _with_download_link(text, os.path.basename(_ipynb(p)) if has_code else None,
                                           "../" * p.count("/") + ARCHIVE if kit and b == "exercise" else None,
                                           home=p == "index.qmd")
            (bdir / p).write_text(text, encoding="utf-8")
            nbformat.write(to_notebook(ndoc, student=True, branch=b), bdir / _ipynb(p))
            html_nbs[(b, p)] = to_notebook(hdoc, student=False, branch=b)
    report.timings["sources"] = time.perf_counter() - t0

    # 2. Execute (branches of one page in sequence: lessons write fixed paths such as /tmp/09_*.cu).
    # Static explorers compute their control grid once per set of inputs, and pure figures
    # (figures.lessonkit.pure_figure) render their PNG once; the other branch reuses both.
    caches = {"COURSEBUILD_EXPLORER_CACHE": build_dir / "explorer-cache",
              "COURSEBUILD_FIGURE_CACHE": build_dir / "figure-cache"}
    for cache in caches.values():
        for old in cache.glob("*"):
            if old.name != digest[:16]:
                shutil.rmtree(old, ignore_errors=True)
    cache_env = {var: str(cache / digest[:16]) for var, cache in caches.items()}
    executed: dict[tuple[str, str], nbformat.NotebookNode] = {}
    if execute and not use_quarto:
        ensure_kernel()
        lock = threading.Lock()
        # Lessons import the project's packages (labsim, figures, grading) from this checkout, whatever
        # an installed copy says.
        kernel_env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
                      **cache_env}

        started = [0]
        total = len(pages) * len(branches)

        def run_page(p: str) -> None:
            seen: dict[str, nbformat.NotebookNode] = {}
            for b in branches:
                with lock:
                    started[0] += 1
                    log(f"coursebuild:   [{started[0]}/{total}] {b:8s} {p} ...")
                nb = html_nbs[(b, p)]
                key = _nb_key(nb)
                t = time.perf_counter()
                if key in seen:
                    done = nbformat.from_dict(json.loads(json.dumps(seen[key])))
                    done.metadata["course"]["branch"] = b
                    note = "same as the other branch, reused"
                else:
                    done = execute_notebook(nb, build_dir / b / os.path.dirname(p), branch=b, env=kernel_env,
                                           kernel_log=build_dir / "logs" / b / (p + ".kernel.log"))
                    seen[key] = done
                    note = "executed" if any(c.cell_type == "code" for c in nb.cells) else "no code cells"
                with lock:
                    executed[(b, p)] = done
                    report.timings[f"execute {b} {p}"] = time.perf_counter() - t
                    log(f"coursebuild:   {b:8s} {p}: {note} in {time.perf_counter() - t:.1f} s")

        t = time.perf_counter()
        n_jobs = jobs or min(4, os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            for future in [pool.submit(run_page, p) for p in sorted(pages, key=lambda p: -len(str(docs[p].children)))]:
                future.result()
        report.timings["execute"] = time.perf_counter() - t
    else:
        executed = dict(html_nbs)
    for (b, p), nb in executed.items():
        out = build_dir / "executed" / b / _ipynb(p)
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out)

    # 3. Render.
    t = time.perf_counter()
    # Quarto brings its own Mermaid; MathJax comes from npm for both renderers (never from a CDN).
    # COURSEBUILD_VENDOR_CACHE: one cache for several projects (the test suite's many fixture builds share one)
    vendor_cache = Path(os.environ.get("COURSEBUILD_VENDOR_CACHE") or build_dir / "vendor")
    vendor_files = ensure_vendor(vendor_cache, names=("mathjax",) if use_quarto else None)
    for name, vf in vendor_files.items():
        log(f"coursebuild: {name}: {vf.note if vf.path else 'not available: ' + vf.note}")
        if vf.path is None:
            report.notes.append(f"{name} not vendored: {vf.note}")
    for b in branches:
        dest = site_dir / b
        if use_quarto:
            copied = install_for_quarto(vendor_files, build_dir / b)
            report.vendored = {k: v.note for k, v in vendor_files.items() if k in copied}
            tb, cb = time.perf_counter(), _cpu_seconds()
            current: list = []          # [file, started] of the page Quarto is rendering

            def page_done(b=b, current=current) -> None:
                if current:
                    took = time.perf_counter() - current[1]
                    report.timings[f"quarto {b} {current[0]}"] = took
                    log(f"coursebuild:   {b:8s} {current[0]}: rendered (cells run) in {took:.1f} s")

            def on_page(k: int, n: int, file: str, b=b, current=current) -> None:
                page_done()
                current[:] = [file, time.perf_counter()]
                log(f"coursebuild:   {b:8s} [{k}/{n}] {file} ...")

            log(f"coursebuild: quarto render --profile {b} ({len(pages)} pages; each page's cells run as it renders)")
            warned = render_branch(quarto, build_dir / b, b, dest, pythonpath=str(root), env=cache_env,
                                   on_page=on_page)
            page_done()
            report.timings[f"quarto {b}"] = time.perf_counter() - tb
            log(f"coursebuild:   {b:8s} quarto render (runs every page's code): {time.perf_counter() - tb:.1f} s "
                f"(CPU {_cpu_seconds() - cb:.1f} s)")
            for w in warned:
                log(f"coursebuild: quarto warning ({b}): {w}")
                report.warnings.append(f"{b}: {w}")
            continue
        if not only:
            shutil.rmtree(dest, ignore_errors=True)
        install_assets(dest)
        copied = install_vendor(vendor_files, dest / "site_libs")
        report.vendored = {k: v.note for k, v in vendor_files.items() if k in copied}
        renderer_ = PageRenderer(sites[b], b, copied, kit_archive=ARCHIVE if kit and b == "exercise" else None)
        for p in pages:
            out = dest / (p[: -len(".qmd")] + ".html")
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(renderer_.render(p, executed[(b, p)], build_dir / b / os.path.dirname(p),
                                            os.path.basename(_ipynb(p))), encoding="utf-8")
    report.timings["render"] = time.perf_counter() - t
    if report.warnings and fail_on_warnings:
        raise BuildError(f"{len(report.warnings)} renderer warning(s) and --fail-on-warnings:\n  "
                         + "\n  ".join(report.warnings))

    # 4. Notebooks next to the pages, and the student hand-out.
    for b in branches:
        _copy_resources(root, pages, site_dir / b)
        for p in pages:
            shutil.copyfile(build_dir / b / _ipynb(p), site_dir / b / _ipynb(p))
    if "exercise" in branches:
        hand_out = site_dir / "notebooks"
        if not only:
            shutil.rmtree(hand_out, ignore_errors=True)
        _copy_resources(root, pages, hand_out)
        for p in pages:
            (hand_out / _ipynb(p)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(build_dir / "exercise" / _ipynb(p), hand_out / _ipynb(p))

        made_kit = False
        if not only and kit:
            t = time.perf_counter()
            from grading.studentbuild.verify import BuildError as KitError
            try:
                kit_log = make_student_kit(root, hand_out)
            except KitError as err:
                raise BuildError(f"leak guard: student kit: {err}") from None
            made_kit = True
            log(f"coursebuild: student kit in {hand_out.relative_to(base)}: "
                f"{next((ln for ln in kit_log if 'h200' in ln), 'no H200 bundle')}")

        # 5. Nothing hidden and no exercise's answer may have reached anything built for students: every file
        # of the student site, the hand-out (the kit) and the exercise branch's sources and notebooks.
        built = shipped_files(site_dir / "exercise", hand_out, build_dir / "exercise", build_dir / "executed" / "exercise")
        hits = scan_for_leaks(built, snippets)
        if hits:
            raise BuildError("leak guard: hidden-check text in the exercise branch:\n  " + "\n  ".join(hits[:20]))
        hits = scan_for_fills(built, answers)
        if hits:
            raise BuildError("leak guard: an exercise's answer (its reference fill) in what students get:\n  "
                             + "\n  ".join(hits[:20]))
        log(f"coursebuild: leak guard: {len(built)} files of the student site, kit and exercise branch: no hidden-check "
            f"text ({len(snippets)} snippets), no reference fill ({len(answers)} patterns)")
        if made_kit:
            archive = make_archive(hand_out, site_dir / "exercise" / ARCHIVE)
            report.timings["student kit"] = time.perf_counter() - t
            log(f"coursebuild: student kit archive: {archive.relative_to(base)} "
                f"({archive.stat().st_size / 2**20:.1f} MiB), linked from every exercise page")

    site_dir.mkdir(exist_ok=True)
    (site_dir / "index.html").write_text(_landing(load_site(root).title, branches, report.renderer_detail,
                                                  kit=(site_dir / "exercise" / ARCHIVE).is_file()), encoding="utf-8")
    report.seconds = time.perf_counter() - t0
    report.cpu_seconds = _cpu_seconds() - cpu0
    info = {"renderer": report.renderer, "renderer_detail": report.renderer_detail,
            "seconds": round(report.seconds, 2), "cpu_seconds": round(report.cpu_seconds, 2), "branches": list(branches), "pages": pages,
            "executed": bool(execute), "vendored": report.vendored, "notes": report.notes,
            "warnings": report.warnings, "timings": {k: round(v, 2) for k, v in report.timings.items()},
            "partial": bool(only), "inputs_digest": digest,
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    (site_dir / "build-info.json").write_text(json.dumps(info, ensure_ascii=False, indent=2), encoding="utf-8")
    return report


def site_is_current(root: Path, branches: tuple[str, ...] = BRANCHES, renderer: str = "auto",
                    out: Path | None = None) -> bool:
    """True if ``<out or root>/_site`` holds a complete, executed build of exactly the current inputs, made by
    ``renderer`` ("auto": Quarto when it is on PATH, else the fallback)."""
    info_path = (out or root) / "_site" / "build-info.json"
    try:
        info = json.loads(info_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    want = ("quarto" if find_quarto() else "fallback") if renderer == "auto" else renderer
    return (not info.get("partial") and info.get("executed") and set(branches) <= set(info.get("branches", []))
            and info.get("renderer") == want and info.get("inputs_digest") == inputs_digest(root.resolve()))


def ensure_built(root: Path, **kwargs) -> BuildReport | None:
    """Build unless :func:`site_is_current`; returns the report, or None when nothing was rebuilt.

    The build lock is held from the check to the end of the build, so two test sessions (or a test and
    a developer) never build at once nor both rebuild.
    """
    root = root.resolve()
    with _build_lock(root):
        if site_is_current(root, renderer=kwargs.get("renderer", "auto"), out=kwargs.get("out")):
            return None
        return _build(root, **kwargs)
