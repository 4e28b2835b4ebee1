"""Vendored browser scripts: override by env, graceful without npm (no network used here)."""
from __future__ import annotations

from coursebuild.vendor import PACKAGES, ensure_vendor, install_vendor


def test_env_override_and_install(tmp_path, monkeypatch):
    js = tmp_path / "m.js"
    js.write_text("window.mermaid = {};", encoding="utf-8")
    monkeypatch.setenv("COURSEBUILD_MERMAID_JS", str(js))
    monkeypatch.setenv("COURSEBUILD_MATHJAX_JS", str(tmp_path / "missing.js"))
    files = ensure_vendor(tmp_path / "cache")
    assert files["mermaid"].path == js
    assert files["mathjax"].path is None and "not a file" in files["mathjax"].note
    copied = install_vendor(files, tmp_path / "site_libs")
    assert copied == {"mermaid": "mermaid-m.js"}
    assert (tmp_path / "site_libs" / "mermaid-m.js").read_text() == "window.mermaid = {};"


def test_without_npm_nothing_breaks(tmp_path, monkeypatch):
    for _, _, env in PACKAGES.values():
        monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm on PATH
    files = ensure_vendor(tmp_path / "cache")
    assert all(f.path is None and "npm is not installed" in f.note for f in files.values())
    assert install_vendor(files, tmp_path / "libs") == {}


def test_cache_is_used(tmp_path, monkeypatch):
    for _, _, env in PACKAGES.values():
        monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    spec, member, _ = PACKAGES["mermaid"]
    cached = tmp_path / "cache" / spec.replace("@", "-") / member.rsplit("/", 1)[1]
    cached.parent.mkdir(parents=True)
    cached.write_text("x", encoding="utf-8")
    assert ensure_vendor(tmp_path / "cache")["mermaid"].path == cached


def test_npm_failure_is_a_note_and_stops_further_tries(tmp_path, monkeypatch):
    for _, _, env in PACKAGES.values():
        monkeypatch.delenv(env, raising=False)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "npm"
    fake.write_text(f"#!/bin/sh\necho called >> {tmp_path / 'calls'}\necho 'network unreachable' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bindir))
    files = ensure_vendor(tmp_path / "cache")
    names = list(PACKAGES)
    assert "network unreachable" in files[names[0]].note and files[names[0]].path is None
    assert all(files[n].note.startswith("not tried after") for n in names[1:])
    assert (tmp_path / "calls").read_text().count("called") == 1
