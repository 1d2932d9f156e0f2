"""CI cannot go green without what it requires: under ARENA_REQUIRE_<NEED>=1 a skip for want of that need fails
(tests/conftest.py), whether a marker, the test itself or its module's import raised it; without the flag it is a
skip. And an exception in a thread a test started fails that test (pyproject.toml). Tiny test files are run in a
pytest of their own, with the suite's configuration and its conftest as a plugin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

NEEDY = '''
import pytest
from conftest import skip_for_want_of

@pytest.mark.needs("browser", "no Chromium here")
def test_marked():
    pass

@pytest.mark.needs("browser", None)
def test_marked_and_present():
    pass

def test_skips_itself():
    skip_for_want_of("sandbox", "no bwrap here")

def test_skips_for_another_reason():
    pytest.skip("not on this machine")
'''

THREADED = '''
import threading

def test_a_thread_fails():
    thread = threading.Thread(target=lambda: 1 / 0)
    thread.start()
    thread.join()
'''

NEEDY_MODULE = '''
from conftest import import_optional

import_optional("arena_no_such_library")

def test_never_reached():
    pass
'''


def pytest_in(folder: Path, *args: str, path: str | None = None, **flags: str) -> subprocess.CompletedProcess:
    """A pytest run in `folder` with the suite's conftest as a plugin, no ARENA_REQUIRE_* flag but `flags`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_REQUIRE_")}
    env.update(flags, PYTHONPATH=str(TESTS), COLUMNS="300")  # summary lines whole
    if path is not None:
        env["PATH"] = path
    command = [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(folder),
               "-p", "conftest", "-p", "no:cacheprovider", "-n", "0", "-o", "addopts=", "-rfEs", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def test_a_required_need_turns_its_skips_into_failures_and_no_other(tmp_path):
    (tmp_path / "test_needy.py").write_text(NEEDY)
    (tmp_path / "test_needy_module.py").write_text(NEEDY_MODULE)
    files = ["--continue-on-collection-errors", "test_needy.py", "test_needy_module.py"]
    relaxed = pytest_in(tmp_path, *files)
    assert relaxed.returncode == 0 and "1 passed, 4 skipped" in relaxed.stdout, relaxed.stdout
    strict = pytest_in(tmp_path, *files, ARENA_REQUIRE_BROWSER="1", ARENA_REQUIRE_SANDBOX="1", ARENA_REQUIRE_RL="1")
    # a marker's skip fails the test's setup (an error), a skip inside the test fails the test, a module's skip
    # fails its collection (an error); the skip for another reason stays a skip
    assert strict.returncode == 1 and "1 failed, 1 passed, 1 skipped, 2 errors" in strict.stdout, strict.stdout
    for line in ("ERROR test_needy.py::test_marked - ARENA_REQUIRE_BROWSER=1, yet skipped: needs browser: no Chromium",
                 "FAILED test_needy.py::test_skips_itself - ARENA_REQUIRE_SANDBOX=1, yet skipped: needs sandbox:",
                 "ERROR test_needy_module.py - ARENA_REQUIRE_RL=1, yet skipped: needs rl: cannot import"):
        assert line in strict.stdout, strict.stdout


def test_an_exception_in_a_thread_fails_its_test(tmp_path):
    (tmp_path / "test_threaded.py").write_text(THREADED)
    run = pytest_in(tmp_path, "test_threaded.py")
    assert run.returncode == 1 and "1 failed" in run.stdout and "ZeroDivisionError" in run.stdout, run.stdout


def test_ci_fails_with_chromium_hidden(tmp_path):
    """The report's browser test with no Chromium on PATH (the venv's tools alone): skipped on a developer's
    machine, a failure under CI's ARENA_REQUIRE_BROWSER=1."""
    hidden = str(Path(sys.executable).parent)
    test = str(TESTS / "test_report.py::test_chromium_draws_the_report_without_errors")
    relaxed = pytest_in(ROOT, test, path=hidden)
    assert relaxed.returncode == 0 and "1 skipped" in relaxed.stdout, relaxed.stdout
    strict = pytest_in(ROOT, test, path=hidden, ARENA_REQUIRE_BROWSER="1")
    assert strict.returncode == 1 and "ARENA_REQUIRE_BROWSER=1, yet skipped: needs browser: Chromium is not" \
        in strict.stdout, strict.stdout
