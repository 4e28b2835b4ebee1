"""Local copies of the browser scripts the pages need: Mermaid (fallback pages) and MathJax (both renderers).

Pages must work offline (a classroom without internet, the headless test browser), so scripts are
never loaded from a CDN. At build time the pinned npm packages are fetched with ``npm pack`` (npm
checks the registry's integrity hash) into ``_build/vendor/`` (or ``$COURSEBUILD_VENDOR_CACHE``, shared by several
projects) once, and the one file each page needs
is copied into the site (Quarto pages: MathJax only, at :data:`QUARTO_MATHJAX`;
Quarto brings its own Mermaid):

* ``mermaid`` -> ``dist/mermaid.min.js`` (a self-contained IIFE bundle, no lazy-loaded chunks);
* ``mathjax`` -> ``es5/tex-svg-full.js`` (every TeX extension and SVG glyphs inside one file).

Where npm or the registry is unavailable the build still succeeds: a Mermaid figure is then shown as
its source in ``<pre class="mermaid">`` with a notice, and formulas stay as TeX text. The build report
and ``_site/build-info.json`` say which happened. ``COURSEBUILD_MERMAID_JS`` / ``COURSEBUILD_MATHJAX_JS``
may point at local files instead.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

PACKAGES = {
    # name: (npm spec, file inside the package, env override)
    "mermaid": ("mermaid@11.17.2", "package/dist/mermaid.min.js", "COURSEBUILD_MERMAID_JS"),
    "mathjax": ("mathjax@3.2.2", "package/es5/tex-svg-full.js", "COURSEBUILD_MATHJAX_JS"),
}


# Where each Quarto branch project gets the vendored MathJax: _quarto.yml's html-math-method url names this
# file (Quarto makes the url relative to each page and copies the file into the site).
QUARTO_MATHJAX = "course_libs/mathjax-tex-svg-full.js"


@dataclass
class VendorFile:
    """One vendored script: where it is cached, or why it is missing."""

    name: str
    path: Path | None
    note: str

    def __repr__(self) -> str:
        return f"VendorFile({self.name!r}, path={self.path}, note={self.note!r})"


def _fetch(name: str, cache: Path, timeout: int) -> VendorFile:
    spec, member, env = PACKAGES[name]
    if os.environ.get(env):
        p = Path(os.environ[env])
        return VendorFile(name, p, f"from ${env}") if p.is_file() else VendorFile(name, None, f"${env}={p} is not a file")
    target = cache / spec.replace("@", "-") / Path(member).name
    if target.is_file():
        return VendorFile(name, target, f"{spec} (cached)")
    npm = shutil.which("npm")
    if npm is None:
        return VendorFile(name, None, "npm is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            # Fail fast when the registry is unreachable: one retry, 30 s per request.
            proc = subprocess.run([npm, "pack", spec, "--silent", "--prefer-offline", "--fetch-retries=1",
                                   "--fetch-timeout=30000", "--pack-destination", tmp],
                                  capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return VendorFile(name, None, f"npm pack {spec} timed out after {timeout} s")
        tgz = sorted(Path(tmp).glob("*.tgz"))
        if proc.returncode != 0 or not tgz:
            return VendorFile(name, None, f"npm pack {spec} failed: {(proc.stderr or proc.stdout).strip()[:300]}")
        try:
            with tarfile.open(tgz[0]) as tar:
                data = tar.extractfile(member)
                if data is None:
                    raise KeyError(member)
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.with_suffix(".part")
                partial.write_bytes(data.read())
                partial.replace(target)
                for extra in ("package/LICENSE", "package/package.json"):
                    try:
                        f = tar.extractfile(extra)
                    except KeyError:
                        continue
                    if f is not None:
                        (target.parent / Path(extra).name).write_bytes(f.read())
        except (KeyError, tarfile.TarError) as err:
            return VendorFile(name, None, f"{spec}: {member} not found in the package ({err})")
    return VendorFile(name, target, f"{spec} (npm)")


def ensure_vendor(cache: Path, timeout: int = 120, names: tuple[str, ...] | None = None) -> dict[str, VendorFile]:
    """Fetch (or find cached) the scripts ``names`` (default: all of :data:`PACKAGES`); never raises for a
    missing network.

    After one npm failure the remaining packages are not tried (same registry, same outcome).
    """
    out: dict[str, VendorFile] = {}
    failed = ""
    for name in names or tuple(PACKAGES):
        if failed:
            out[name] = VendorFile(name, None, f"not tried after: {failed}")
            continue
        out[name] = _fetch(name, cache, timeout)
        note = out[name].note
        if out[name].path is None and note.startswith("npm pack"):
            failed = note
    return out


def install_vendor(files: dict[str, VendorFile], site_libs: Path) -> dict[str, str]:
    """Copy the available scripts into ``site_libs``; return ``{name: file name}`` of those copied."""
    site_libs.mkdir(parents=True, exist_ok=True)
    copied = {}
    for name, vf in files.items():
        if vf.path is not None:
            dest = site_libs / f"{name}-{vf.path.name}"
            shutil.copyfile(vf.path, dest)
            lic = vf.path.parent / "LICENSE"
            if lic.is_file():
                shutil.copyfile(lic, site_libs / f"{name}-LICENSE")
            copied[name] = dest.name
    return copied


def install_for_quarto(files: dict[str, VendorFile], project: Path) -> dict[str, str]:
    """Copy MathJax (and its licence) where _quarto.yml's ``html-math-method`` url expects it in ``project``;
    return ``{"mathjax": path}`` if it was available, else ``{}`` (formulas then stay TeX)."""
    vf = files.get("mathjax")
    if vf is None or vf.path is None:
        return {}
    dest = project / QUARTO_MATHJAX
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(vf.path, dest)
    lic = vf.path.parent / "LICENSE"
    if lic.is_file():
        shutil.copyfile(lic, dest.parent / "mathjax-LICENSE")
    return {"mathjax": QUARTO_MATHJAX}
