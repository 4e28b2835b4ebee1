"""The site's pages and navigation, read from ``_quarto.yml`` (one source for Quarto and the fallback).

* pages: ``project.render`` (globs, relative to the project root);
* sidebar: ``website.sidebar.contents`` with Quarto's item forms: a path, ``{href, text}``,
  ``{section, contents}`` and ``{auto: glob}`` (sorted by the page's ``order`` then file name);
* previous/next: the sidebar order, as Quarto's ``page-navigation`` does.
"""
from __future__ import annotations

import glob
import html
import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .qmd import read_qmd


class SiteConfigError(ValueError):
    """``_quarto.yml`` lacks something the build needs; the message names the key."""


@dataclass
class NavItem:
    """A sidebar entry: a page (``href``) or a section with children."""

    text: str
    href: str = ""
    children: list["NavItem"] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"NavItem({self.text!r}, href={self.href!r}, {len(self.children)} children)"


@dataclass
class Site:
    """Pages, titles and sidebar of the course site."""

    root: Path
    title: str
    pages: list[str]            # project-relative .qmd paths, in render order
    titles: dict[str, str]
    sidebar: list[NavItem]
    config: dict
    summaries: dict[str, str] = field(default_factory=dict)   # a page's front matter ``course-summary``

    def __repr__(self) -> str:
        return f"Site({self.title!r}, {len(self.pages)} pages)"

    def lessons(self) -> list[tuple[str, str, str]]:
        """(page, title, summary) of every page in sidebar order: what the landing page's table lists."""
        return [(p, self.titles[p], self.summaries.get(p, "")) for p in self.order if p in self.titles]

    @property
    def order(self) -> list[str]:
        """Pages in sidebar order (what previous/next follow)."""
        out: list[str] = []

        def walk(items: list[NavItem]) -> None:
            for it in items:
                if it.href and it.href not in out:
                    out.append(it.href)
                walk(it.children)
        walk(self.sidebar)
        return out

    def neighbors(self, page: str) -> tuple[str | None, str | None]:
        order = self.order
        if page not in order:
            return None, None
        i = order.index(page)
        return (order[i - 1] if i > 0 else None), (order[i + 1] if i + 1 < len(order) else None)

    def sidebar_html(self, current: str, ext: str = ".html") -> str:
        """The sidebar as nested lists with links relative to ``current``."""
        def link(item: NavItem) -> str:
            cls = ' class="active" aria-current="page"' if item.href == current else ""
            return f'<a href="{html.escape(rel_link(current, item.href, ext))}"{cls}>{html.escape(item.text)}</a>'

        def walk(items: list[NavItem]) -> str:
            parts = []
            for it in items:
                if it.children:
                    head = link(it) if it.href else f'<span class="course-sidebar-section">{html.escape(it.text)}</span>'
                    parts.append(f"<li>{head}<ul>{walk(it.children)}</ul></li>")
                else:
                    parts.append(f"<li>{link(it)}</li>")
            return "".join(parts)
        return f"<ul>{walk(self.sidebar)}</ul>"


def rel_link(current: str, target: str, ext: str = ".html") -> str:
    """Relative URL from page ``current`` to page ``target`` (both project-relative ``.qmd`` paths)."""
    target_out = posixpath.splitext(target)[0] + ext
    return posixpath.relpath(target_out, posixpath.dirname(current) or ".")


def _glob(root: Path, pattern: str) -> list[str]:
    """Quarto's project globs: a leading "/" anchors at the project root; any other glob matches at every
    depth (Quarto prepends "**/", so "lessons/*.qmd" also finds tests/fixtures/lessons/*.qmd). Folders
    whose names start with "_" or "." (outputs, virtual environments) are never searched, as in Quarto."""
    if pattern.startswith("/"):
        bases = [""]
        pattern = pattern[1:]
    elif glob.has_magic(pattern):
        bases = []
        for dirpath, dirnames, _ in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(("_", ".")))
            bases.append(os.path.relpath(dirpath, root))
    else:
        bases = [""]
    hits = []
    for base in bases:
        for h in glob.glob(pattern, root_dir=root / base, recursive=True):
            rel = posixpath.normpath(posixpath.join(base.replace(os.sep, "/"), h.replace(os.sep, "/")))
            if rel.endswith(".qmd") and not any(part.startswith(("_", ".")) for part in rel.split("/")):
                hits.append(rel)
    return sorted(set(hits))


def _merge(base: dict, over: dict) -> dict:
    """Quarto's config merge: mappings merge recursively, everything else is replaced."""
    out = dict(base)
    for key, value in over.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _read_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as err:
        raise SiteConfigError(f"{path}: cannot read the site configuration: {err}") from None
    if not isinstance(data, dict):
        raise SiteConfigError(f"{path}: must be a YAML mapping")
    return data


def load_site(root: Path, profile: str | None = None) -> Site:
    """Read ``_quarto.yml`` (merged with ``_quarto-<profile>.yml``) and every page's front matter."""
    path = root / "_quarto.yml"
    config = _read_yaml(path)
    if profile and (root / f"_quarto-{profile}.yml").exists():
        config = _merge(config, _read_yaml(root / f"_quarto-{profile}.yml"))
    patterns = config.get("project", {}).get("render")
    if not patterns:
        raise SiteConfigError(f"{path}: project.render must list the pages (globs) to build")
    pages: list[str] = []
    for pattern in patterns:
        for hit in _glob(root, str(pattern)):
            if hit not in pages:
                pages.append(hit)
    fronts = {p: read_qmd(root / p, p).front_matter for p in pages}
    titles = {p: str(fronts[p].get("title", Path(p).stem)) for p in pages}
    website = config.get("website", {})
    sidebar_cfg = website.get("sidebar", {})
    if isinstance(sidebar_cfg, list):  # several sidebars: the unit uses the first
        sidebar_cfg = sidebar_cfg[0] if sidebar_cfg else {}

    def order_key(p: str) -> tuple:
        order = fronts.get(p, {}).get("order")
        return (0, float(order), p) if isinstance(order, (int, float)) else (1, 0.0, p)

    def items(contents: object) -> list[NavItem]:
        if contents is None:
            return []
        if isinstance(contents, str):
            contents = [{"auto": contents}] if any(c in contents for c in "*?[") else [contents]
        out: list[NavItem] = []
        for entry in contents:
            if isinstance(entry, str):
                out.append(NavItem(titles.get(entry, Path(entry).stem), entry))
            elif isinstance(entry, dict) and "auto" in entry:
                hits = [h for h in _glob(root, str(entry["auto"])) if h in titles]
                out.extend(NavItem(titles[h], h) for h in sorted(hits, key=order_key))
            elif isinstance(entry, dict) and "section" in entry:
                out.append(NavItem(str(entry["section"]), str(entry.get("href", "")), items(entry.get("contents"))))
            elif isinstance(entry, dict) and "href" in entry:
                href = str(entry["href"])
                out.append(NavItem(str(entry.get("text", titles.get(href, href))), href))
            else:
                raise SiteConfigError(f"{path}: website.sidebar.contents has an entry the build does not "
                                      f"understand: {entry!r}")
        return out

    sidebar = items(sidebar_cfg.get("contents"))
    for item in _flatten(sidebar):
        if item.href and item.href not in titles:
            raise SiteConfigError(f"{path}: the sidebar links to {item.href}, which project.render does not build")
    title = str(website.get("title") or config.get("project", {}).get("title") or "")
    summaries = {p: str(fronts[p]["course-summary"]) for p in pages if fronts[p].get("course-summary")}
    return Site(root, title, pages, titles, sidebar, config, summaries)


def _flatten(items: list[NavItem]) -> list[NavItem]:
    out = []
    for it in items:
        out.append(it)
        out.extend(_flatten(it.children))
    return out
