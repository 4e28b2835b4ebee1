"""_quarto.yml and the profile files against the parts of Quarto's documented schema they use.

The allowed keys are copied from quarto-cli's schema (src/resources/schema/project.yml and
definitions.yml: `project` and the sidebar/navigation objects are closed there), so a typo or an
invented key fails here instead of in a Quarto render we cannot run on these machines.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
PROFILES = ("answer", "exercise")

PROJECT_KEYS = {"title", "type", "render", "execute-dir", "output-dir", "lib-dir", "resources", "preview",
                "pre-render", "post-render", "detect"}
SIDEBAR_KEYS = {"id", "title", "logo", "search", "tools", "contents", "style", "background", "foreground", "border",
                "alignment", "collapse-level", "pinned", "header", "footer"}
NAV_ITEM_KEYS = {"aria-label", "file", "href", "icon", "id", "menu", "text", "url", "rel", "target"}
WEBSITE_KEYS = {"title", "description", "favicon", "site-url", "site-path", "repo-url", "repo-branch", "repo-actions",
                "reader-mode", "search", "navbar", "sidebar", "body-header", "body-footer", "page-navigation",
                "back-to-top-navigation", "bread-crumbs", "page-footer", "image", "comments", "open-graph"}


def _load(name):
    return yaml.safe_load((REPO / name).read_text(encoding="utf-8"))


def _check_contents(items, where):
    assert isinstance(items, list), where
    for item in items:
        if isinstance(item, str):
            assert (REPO / item).is_file(), f"{where}: {item} does not exist"
        elif "auto" in item:
            assert set(item) == {"auto"}, where
            assert list(REPO.glob(item["auto"])), f"{where}: auto {item['auto']} matches nothing"
        elif "section" in item:
            assert set(item) <= {"section", "contents"}, f"{where}: section takes only section/contents: {item}"
            _check_contents(item["contents"], where)
        else:
            assert set(item) <= NAV_ITEM_KEYS, f"{where}: unknown navigation item keys {set(item) - NAV_ITEM_KEYS}"
            assert (REPO / item["href"]).is_file(), f"{where}: {item['href']} does not exist"


def test_main_config():
    cfg = _load("_quarto.yml")
    assert set(cfg["project"]) <= PROJECT_KEYS
    assert cfg["project"]["type"] == "website" and cfg["project"]["execute-dir"] in ("file", "project")
    assert all(isinstance(p, str) for p in cfg["project"]["render"])
    assert cfg["lang"] == "zh"
    assert set(cfg["profile"]) <= {"group", "default"}
    assert [sorted(g) for g in cfg["profile"]["group"]] == [sorted(PROFILES)]
    website = cfg["website"]
    assert set(website) <= WEBSITE_KEYS and website["page-navigation"] is True
    sidebar = website["sidebar"]
    assert set(sidebar) <= SIDEBAR_KEYS and sidebar["style"] in ("docked", "floating")
    _check_contents(sidebar["contents"], "website.sidebar.contents")
    assert isinstance(cfg["crossref"]["title-delim"], str)


@pytest.mark.parametrize("profile", PROFILES)
def test_profile_files(profile):
    cfg = _load(f"_quarto-{profile}.yml")
    assert set(cfg) <= {"project", "website", "format", "execute", "lang"}
    assert cfg["project"] == {"output-dir": f"_site/{profile}"}
    assert set(cfg.get("website", {})) <= WEBSITE_KEYS


def test_lessons_name_only_declared_profiles():
    # A typo such as when-profile="answers" would silently hide content in both branches.
    for path in sorted(REPO.glob("lessons/**/*.qmd")) + [REPO / "index.qmd"]:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"(?:when|unless)-profile=[\"']?([\w, -]+)", text):
            names = {n for n in re.split(r"[,\s]+", m.group(1)) if n}
            assert names <= set(PROFILES), f"{path.relative_to(REPO)}: unknown profile {names - set(PROFILES)}"
        for m in re.finditer(r"course_role:\s*(\S+)", text):
            assert m.group(1) in ("exercise", "solution", "check"), f"{path.relative_to(REPO)}: role {m.group(1)}"


def test_render_globs_are_anchored_at_the_project():
    # Quarto matches an unanchored glob at any depth: "lessons/*.qmd" also renders tests/**/fixtures/lessons/.
    for pattern in _load("_quarto.yml")["project"]["render"]:
        assert pattern.startswith("/"), f"project.render: {pattern!r} needs a leading '/'"


def test_fallback_reads_globs_as_quarto_does(tmp_path):
    from coursebuild.site import _glob
    for rel in ("lessons/a.qmd", "tests/fixtures/lessons/b.qmd", "_build/lessons/c.qmd", ".venv/lessons/d.qmd"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("---\ntitle: x\n---\n", encoding="utf-8")
    assert _glob(tmp_path, "/lessons/*.qmd") == ["lessons/a.qmd"]
    assert _glob(tmp_path, "lessons/*.qmd") == ["lessons/a.qmd", "tests/fixtures/lessons/b.qmd"]


def test_quarto_itself_renders_only_the_course():
    import json
    import shutil
    import subprocess

    from coursebuild.site import load_site
    quarto = shutil.which("quarto")
    if quarto is None:
        pytest.skip("quarto is not on PATH (.ci/run installs it from ../shared/tools/quarto)")
    proc = subprocess.run([quarto, "inspect"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    files = json.loads(proc.stdout)["files"]["input"]
    rel = sorted(str(Path(f).resolve().relative_to(REPO)) for f in files)
    assert rel == sorted(load_site(REPO).pages), rel
