"""The test run's sandbox, made when tests/conftest.py imports this module (once per run, before any test):
$HOME and every per-user cache, config and data directory point into one temporary folder, in the
environment, so that subprocesses (kernels, the grader's workers, the site build) use it too. The caches sit
beside the fake home, not in it: a file that appears *in* the fake home came from a tool that writes to ~
behind the variables' back, and the run fails naming it (conftest's ``pytest_sessionfinish``).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

REAL_HOME = Path.home()
SANDBOX = Path(tempfile.mkdtemp(prefix="course-tests-"))
FAKE_HOME = SANDBOX / "home"
# Where each tool puts its per-user files unless told otherwise (all under ~ by default).
DIRS = {
    "XDG_CACHE_HOME": "cache", "XDG_CONFIG_HOME": "config", "XDG_DATA_HOME": "data", "XDG_STATE_HOME": "state",
    "XDG_RUNTIME_DIR": "runtime", "MPLCONFIGDIR": "matplotlib", "IPYTHONDIR": "ipython",
    "JUPYTER_CONFIG_DIR": "jupyter-config", "JUPYTER_DATA_DIR": "jupyter-data",
    "JUPYTER_RUNTIME_DIR": "jupyter-runtime", "LABSIM_SASS_CACHE": "cache/labsim/sass",
    "npm_config_cache": "npm-cache", "RUSTUP_HOME": "rustup",   # rustup's proxies (PATH) write settings.toml
}
# Tools' own settings stay readable where the user keeps them (a package index or registry mirror, say):
# reading them writes nothing; only where they write moves.
USER_CONFIGS = {"PIP_CONFIG_FILE": REAL_HOME / ".config" / "pip" / "pip.conf",
                "NPM_CONFIG_USERCONFIG": REAL_HOME / ".npmrc"}

FAKE_HOME.mkdir()
os.environ["HOME"] = str(FAKE_HOME)
for _var, _sub in DIRS.items():
    (SANDBOX / _sub).mkdir(parents=True, exist_ok=True)
    os.environ[_var] = str(SANDBOX / _sub)
os.chmod(SANDBOX / "runtime", 0o700)      # XDG_RUNTIME_DIR must be private, or tools ignore it
for _var, _path in USER_CONFIGS.items():
    if _var not in os.environ and _path.is_file():
        os.environ[_var] = str(_path)


def files_in_fake_home() -> list[Path]:
    return sorted(p for p in FAKE_HOME.rglob("*") if not p.is_dir())
