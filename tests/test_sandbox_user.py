"""The sandbox as most people run it: as an ordinary user, not root. arena/isolation/sandbox.py has a branch for each
(root drops to a uid of its own; a user makes a user namespace and forbids more inside, `--unshare-user
--disable-userns`), and the test machines run as root: so here a tournament runs as `nobody`, the zoo's snoop
(tests/zoo/escapes.py) entered twice, sandboxed and in a bare process, with a secret any user may read beside it.

`nobody` needs a Python it may run holding arena's dependencies: a venv of the system's Python made in a
temporary folder of the project's .venv, its site-packages hard links to the .venv's (a second or two, no copy,
no download).
arena itself is the project's own folder (the .venv's editable install), which every user must be able to enter:
under a folder closed to others (mode 700, as `mktemp -d` makes) the tests are skipped, saying which (a failure
where the run requires the sandbox, as CI does)."""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SYSTEM_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")


def _cannot() -> str | None:
    """Why a tournament cannot be run as `nobody` here (None when it can)."""
    if os.geteuid() != 0:
        return "not root: cannot become nobody (the suite as an ordinary user runs that branch everywhere)"
    if shutil.which("runuser") is None:
        return "no runuser"
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        return "no user nobody"
    if not SYSTEM_PYTHON.exists():
        return f"no {SYSTEM_PYTHON} for nobody to run"
    shut = [folder for folder in (ROOT, *ROOT.parents) if not folder.stat().st_mode & 0o001]
    if shut:  # a folder as `mktemp -d` makes one: nobody could not reach arena or the venv in it
        mode = shut[-1].stat().st_mode & 0o777
        return f"nobody may not enter {shut[-1]} (mode {mode:o}): the project must be in folders others may enter"
    return None


SNOOP = f"{ROOT / 'tests' / 'zoo' / 'escapes.py'}:EscapesBot"


@pytest.fixture(scope="module")
def nobody():
    """A folder every user may enter, in the project's venv (on its file system: hard links cannot cross one), and a
    venv there of the system's Python holding arena's dependencies; runs a script in it as `nobody`."""
    with tempfile.TemporaryDirectory(prefix="nobody-", dir=sys.prefix) as folder:
        folder = Path(folder)
        folder.chmod(0o755)
        venv = folder / "venv"
        subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", venv], check=True)
        packages = Path(sysconfig.get_paths()["purelib"])
        own = venv / packages.relative_to(sys.prefix)
        shutil.rmtree(own)
        subprocess.run(["cp", "-al", packages, own], check=True)  # hard links: as fast as a listing
        numba_cache = kernels_cache(folder / "numba")

        def run_as_nobody(config: dict, name: str) -> list[dict]:
            """`arena.run(config)` as nobody, in a folder of its own named `name`: its games' rows."""
            run = folder / name
            run.mkdir()
            shutil.chown(run, "nobody")
            (run / "config.json").write_text(json.dumps(config))
            script = ("import json, sys, arena\n"
                      "run = arena.run(json.load(open('config.json')))\n"
                      "print(run.results[['players', 'fault_seat', 'fault', 'termination']].to_json(orient='records'))")
            done = subprocess.run(["runuser", "-u", "nobody", "--", "env", f"HOME={run}", "PATH=/usr/bin:/bin",
                                   f"NUMBA_CACHE_DIR={numba_cache}",
                                   venv / "bin" / "python", "-c", script], cwd=run, capture_output=True, text=True,
                                  timeout=300)
            assert done.returncode == 0, done.stderr
            return json.loads(done.stdout.splitlines()[-1])

        yield folder, run_as_nobody


def kernels_cache(cache: Path) -> Path:
    """A numba cache for nobody holding the ratings' kernels as compiled for root (numba's layout: the folder of the
    source, named by its path's SHA-1): nobody may not write beside arena's source, where root's are, and numba would
    compile them again in each run, 6 CPU-s."""
    import arena.ratings

    source = Path(arena.ratings.__file__).parent
    into = cache / f"{source.name}_{hashlib.sha1(str(source).encode()).hexdigest()}"
    into.mkdir(parents=True)
    for compiled in (source / "__pycache__").glob("kernels.*.nb[ic]"):
        shutil.copy2(compiled, into)
    subprocess.run(["chown", "-R", "nobody", cache], check=True)
    return cache


@pytest.mark.slow
@pytest.mark.needs("sandbox", _cannot())
def test_the_snoop_finds_nothing_in_an_ordinary_users_sandbox(nobody):
    folder, run_as_nobody = nobody
    secret = folder / "secret"
    secret.write_text("the snoop's prize 5d2f")
    secret.chmod(0o644)  # nobody may read it: only a sandbox keeps it from the bot
    attacks = {"how": "secret,source,write,proc,unshare,ptrace", "secret": str(secret),
               "sources": [str(ROOT / "tests" / "zoo" / "raises.py")], "folders": [str(folder / "zoo")]}
    bots = [{"name": "random"}, {"name": "sandboxed", "path": SNOOP, "isolation": "sandbox", "params": attacks},
            {"name": "bare", "path": SNOOP, "isolation": "process", "params": attacks}]
    games = run_as_nobody({"name": "nobody", "seed": 3, "games": [{"game": "caterpillar", "deals": 2}],
                           "bots": bots, "run": {"workers": 1, "move_time_limit": 5.0}}, "zoo")
    faults = {bot["name"]: [] for bot in bots}
    for game in games:
        if game["fault_seat"] is not None:
            faults[game["players"][int(game["fault_seat"])]].append(game["fault"])
    assert len(games) == 12 and faults["sandboxed"] == [] and faults["random"] == [], faults
    # the same bot in a bare process, as nobody, reads the secret: the test sees a breakout where there is one
    assert faults["bare"] and all("escaped: " in fault for fault in faults["bare"]), faults["bare"]
    assert any("5d2f" in fault for fault in faults["bare"]), faults["bare"]


SPINS = f"{ROOT / 'tests' / 'zoo' / 'hangs.py'}:HangsBot"


@pytest.mark.slow
@pytest.mark.needs("sandbox", _cannot())
def test_an_ordinary_users_bots_are_timed_by_their_own_cpu_time(nobody):
    """As nobody, a bot that spins in its own process or in its sandbox forfeits on its CPU time (`no move within
    0.3s`), not on the wall-clock backstop (`... of wall time`, ten times longer): arena reads the clock of the bot's
    own process, inside the sandbox's namespaces too, as it does as root (tests/test_isolation.py)."""
    _, run_as_nobody = nobody
    bots = [{"name": "random"}, {"name": "sandboxed", "path": SPINS, "isolation": "sandbox"},
            {"name": "bare", "path": SPINS, "isolation": "process"}]
    games = run_as_nobody({"name": "clock", "seed": 3, "games": [{"game": "caterpillar", "deals": 1}],
                           "bots": bots, "run": {"workers": 1, "move_time_limit": 0.3, "wall_backstop": 30}}, "clock")
    faults = {bot["name"]: [] for bot in bots}
    for game in games:
        if game["fault_seat"] is not None:
            faults[game["players"][int(game["fault_seat"])]].append((game["termination"], game["fault"]))
    for bot in ("sandboxed", "bare"):
        assert faults[bot] and all(fault == ("timeout", "no move within 0.3s") for fault in faults[bot]), faults
