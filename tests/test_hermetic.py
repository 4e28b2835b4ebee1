"""The suite is hermetic: it runs with a fake $HOME (tests/sandbox.py), and a run that leaves files there fails."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import sandbox

HERE = Path(__file__).parent


def test_this_run_has_a_fake_home_and_private_caches():
    home = Path(os.environ["HOME"])
    assert home == sandbox.FAKE_HOME and home.is_dir() and sandbox.SANDBOX in home.parents
    for var in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "MPLCONFIGDIR", "IPYTHONDIR",
                "JUPYTER_RUNTIME_DIR", "LABSIM_SASS_CACHE"):
        assert sandbox.SANDBOX in Path(os.environ[var]).parents, var
        assert home not in Path(os.environ[var]).parents, var   # caches are not *in* the fake home


def _inner_run(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    for name in ("conftest.py", "sandbox.py", "workbound.py"):
        shutil.copy(HERE / name, tmp_path / name)
    (tmp_path / "test_inner.py").write_text(body)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)


def test_a_run_that_writes_into_home_fails(tmp_path):
    r = _inner_run(tmp_path, "from pathlib import Path\n\n"
                             "def test_writes():\n    (Path.home() / '.mytool').mkdir()\n"
                             "    (Path.home() / '.mytool' / 'state.json').write_text('{}')\n")
    assert r.returncode != 0 and "1 passed" in r.stdout, r.stdout + r.stderr
    assert "Tests wrote into $HOME" in r.stdout and ".mytool/state.json" in r.stdout
    left = Path(r.stdout.split("Tests wrote into $HOME (", 1)[1].split(")", 1)[0])   # kept for inspection
    assert left.name == "home" and (left / ".mytool" / "state.json").is_file()
    shutil.rmtree(left.parent)


def test_a_run_that_uses_the_cache_variables_passes(tmp_path):
    r = _inner_run(tmp_path, "import os\nfrom pathlib import Path\n\n"
                             "def test_caches():\n    Path(os.environ['XDG_CACHE_HOME'], 'x').write_text('1')\n")
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr
