"""The fallback renderer: executed notebook -> site page, with nbconvert's HTMLExporter.

The page body is JupyterLab's own rendering of the notebook (nbconvert's ``lab`` template); the
``course`` template (``templates/course``) adds what Quarto's website adds: title block, sidebar of
the unit, previous/next links, ``<html lang="zh">``, callouts, figures with captions, Mermaid drawn by
a local script. Images are embedded (``data:`` URIs) so a page is one file plus ``site_libs/``.
"""
from __future__ import annotations

import copy
import html
import posixpath
import re
import shutil
from pathlib import Path

from nbconvert import HTMLExporter
from nbformat import NotebookNode

from .htmlsteps import HTML_PIPELINE
from .lang import LANG, UI
from .site import Site, rel_link

TEMPLATES = Path(__file__).parent / "templates"
ASSETS = Path(__file__).parent / "assets"
SITE_LIBS = "site_libs"
_SECTION_NUMBER = re.compile(r'<span class="header-section-number"></span>\s*(\d+(?:\.\d+)*)\s+')


def install_assets(site_dir: Path) -> None:
    """Copy the site's own CSS and scripts into ``site_dir/site_libs``."""
    libs = site_dir / SITE_LIBS
    libs.mkdir(parents=True, exist_ok=True)
    for asset in ASSETS.iterdir():
        if asset.is_file():
            shutil.copyfile(asset, libs / asset.name)


class PageRenderer:
    """Renders the pages of one branch of the site (one exporter reused for every page)."""

    def __init__(self, site: Site, branch: str, vendored: dict[str, str], kit_archive: str | None = None) -> None:
        # kit_archive: the student kit's zip relative to the branch's root (exercise branch), linked beside every
        # notebook download link and from the home page
        self.site, self.branch, self.vendored, self.kit_archive = site, branch, vendored, kit_archive
        self.exporter = HTMLExporter(template_name="course", extra_template_basedirs=[str(TEMPLATES)])
        self.exporter.embed_images = True
        self.exporter.language_code = LANG
        self.exporter.exclude_input_prompt = True  # Quarto shows no In [n]: prompts
        self.exporter.exclude_output_prompt = True

    def __repr__(self) -> str:
        return f"PageRenderer(branch={self.branch!r}, vendored={sorted(self.vendored)}, kit={self.kit_archive!r})"

    def page_context(self, page: str, nb: NotebookNode, notebook_name: str | None) -> dict:
        """Everything the template shows around the notebook body (escaped here, not in Jinja)."""
        depth = page.count("/")
        root = "../" * depth
        prev, nxt = self.site.neighbors(page)
        label = UI["answer_branch"] if self.branch == "answer" else UI["exercise_branch"]
        front = nb.metadata.get("course", {}).get("front_matter", {})

        def nav(target: str | None) -> dict | None:
            if target is None:
                return None
            return {"href": html.escape(rel_link(page, target)), "title": html.escape(self.site.titles[target])}

        def lib(name: str) -> str:
            return f"{root}{SITE_LIBS}/{self.vendored[name]}" if name in self.vendored else ""

        return {
            "branch": self.branch,
            "branch_label": html.escape(label),
            "root": root,
            "site_title": html.escape(self.site.title),
            "home_href": html.escape(rel_link(page, "index.qmd")) if "index.qmd" in self.site.titles else root or "./",
            "sidebar_html": self.site.sidebar_html(page),
            "title": html.escape(str(front.get("title", nb.metadata.get("title", page)))),
            "subtitle": html.escape(str(front.get("subtitle", ""))),
            "notebook_href": html.escape(notebook_name) if notebook_name else "",
            "download_label": html.escape(UI["download_notebook"]),
            "kit_href": html.escape(root + self.kit_archive) if self.kit_archive else "",
            "kit_home": page == "index.qmd",
            "kit_label": html.escape(UI["download_kit"]),
            "kit_note": html.escape(UI["kit_note"]),
            "kit_home_title": html.escape(UI["kit_home_title"]),
            "kit_home_text": html.escape(UI["kit_home"]),
            "prev": nav(prev), "next": nav(nxt),
            "prev_label": html.escape(UI["prev"]), "next_label": html.escape(UI["next"]),
            "footer": html.escape(UI["renderer_note"]),
            "mermaid_src": lib("mermaid"),
            "mathjax_src": lib("mathjax"),
        }

    def render(self, page: str, executed: NotebookNode, nb_dir: Path, notebook_name: str | None = None) -> str:
        """HTML of ``page`` from its executed notebook (``nb_dir``: where relative images resolve)."""
        nb = copy.deepcopy(executed)
        if not any(c.cell_type == "code" for c in nb.cells):
            notebook_name = None  # nothing to run: no download link
        ctx = self.page_context(page, nb, notebook_name)
        for step in HTML_PIPELINE:
            nb = step(nb, ctx)
        resources = {"metadata": {"path": str(nb_dir), "name": posixpath.splitext(posixpath.basename(page))[0]},
                     "course": ctx}
        body, _ = self.exporter.from_notebook_node(nb, resources=resources)
        # nbconvert's markdown renderer moves the section number out of its (then empty) span; put it back
        return _SECTION_NUMBER.sub(r'<span class="header-section-number">\1</span> ', body)
