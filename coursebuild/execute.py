"""Execute notebooks top to bottom with nbclient, in the build's own Python.

The kernel is always ``python3`` of the interpreter running the build (the project's ``.venv``), never
whatever ``python3`` kernelspec a user has installed elsewhere, so lessons import the same labsim the
build sees. A cell error stops the build with the lesson file, line, cell and branch named.
"""
from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel
from jupyter_client.manager import KernelManager
from traitlets import default
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbformat import NotebookNode

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class NotebookExecutionError(RuntimeError):
    """A lesson cell failed; the message names source file, line, cell and branch."""


class _VenvKernelSpecs(KernelSpecManager):
    """Resolves ``python3`` to this interpreter; other names as Jupyter would."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        if kernel_name != "python3":
            return super().get_kernel_spec(kernel_name)
        return KernelSpec(argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                          display_name="Python 3 (course venv)", language="python")


class _VenvKernelManager(KernelManager):
    """A kernel manager nbclient creates (and so shuts down) itself, resolving python3 to this Python."""

    @default("kernel_spec_manager")
    def _venv_spec_manager(self) -> KernelSpecManager:
        return _VenvKernelSpecs(data_dir=self.data_dir)


def ensure_kernel() -> None:
    """Fail early and clearly if the build's Python cannot start a kernel."""
    if importlib.util.find_spec("ipykernel") is None:
        raise NotebookExecutionError(
            f"ipykernel is not installed for {sys.executable}; run `make site` (it installs the project "
            "with `pip install -e '.[dev]'`) or `pip install ipykernel` into this environment")


def _describe_failure(nb: NotebookNode, branch: str, err: Exception) -> str:
    failed = None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            failed = (index, cell)
            break
    source = nb.metadata.get("course", {}).get("source", "<notebook>")
    if failed is None:
        return f"{source} ({branch} branch): execution failed: {_ANSI.sub('', str(err)).strip()[-2000:]}"
    index, cell = failed
    where = cell.metadata.get("course_source", source)
    name = cell.metadata.get("course_options", {}).get("label") or cell.metadata.get("course_role") or ""
    error = next(o for o in cell.outputs if o.get("output_type") == "error")
    tb = _ANSI.sub("", "\n".join(error.get("traceback", [])))
    tail = "\n".join(tb.strip().splitlines()[-12:])
    return (f"{where}: cell {index}{f' ({name})' if name else ''} failed on the {branch} branch: "
            f"{error.get('ename')}: {error.get('evalue')}\n--- kernel traceback (last lines) ---\n{tail}")


def execute_notebook(nb: NotebookNode, cwd: Path, *, branch: str, timeout: int = 600,
                     env: dict[str, str] | None = None, kernel_log: Path | None = None) -> NotebookNode:
    """Run every cell of ``nb`` (in place) with ``cwd`` as working directory; return it.

    ``QUARTO_PROFILE`` is set to ``branch`` in the kernel, as Quarto does when rendering a profile.
    The kernel process's own stderr (ipykernel's start-up chatter, crash reports) goes to
    ``kernel_log`` when given; cell output is captured in the notebook either way.
    """
    if not any(c.cell_type == "code" for c in nb.cells):
        return nb  # nothing to run: no kernel needed
    kernel_env = dict(os.environ)
    # COURSEBUILD_STATIC: explorers render their static (precomputed) form; see figures/static_explorer.py
    kernel_env.update({"QUARTO_PROFILE": branch, "COURSEBUILD_BRANCH": branch, "COURSEBUILD_STATIC": "1",
                       "COURSEBUILD_RENDERER": "fallback"})
    kernel_env.pop("MPLBACKEND", None)  # a non-inline backend would send figures nowhere
    kernel_env.update(env or {})
    client = NotebookClient(nb, timeout=timeout, kernel_manager_class=_VenvKernelManager, kernel_name="python3",
                            resources={"metadata": {"path": str(cwd)}}, record_timing=False,
                            shutdown_kernel="immediate")
    source = nb.metadata.get("course", {}).get("source", "<notebook>")
    log_file = None
    if kernel_log is not None:
        kernel_log.parent.mkdir(parents=True, exist_ok=True)
        log_file = open(kernel_log, "w", encoding="utf-8")  # noqa: SIM115 - closed in finally
    try:
        extra = {"stderr": log_file, "stdout": log_file} if log_file else {}
        client.execute(env=kernel_env, cwd=str(cwd), **extra)
    except CellTimeoutError as err:
        raise NotebookExecutionError(f"{source} ({branch} branch): a cell ran longer than {timeout} s: "
                                     f"{_ANSI.sub('', str(err)).strip()[:500]}") from None
    except DeadKernelError as err:
        where = f" (kernel log: {kernel_log})" if kernel_log else ""
        raise NotebookExecutionError(f"{source} ({branch} branch): the kernel died: {err}{where}") from None
    except CellExecutionError as err:
        raise NotebookExecutionError(_describe_failure(nb, branch, err)) from None
    except NoSuchKernel as err:  # pragma: no cover - _VenvKernelSpecs always answers python3
        raise NotebookExecutionError(f"{source}: no kernel: {err}") from None
    finally:
        if log_file:
            log_file.close()
    return nb


def read_notebook(path: Path) -> NotebookNode:
    return nbformat.read(path, as_version=4)
