"""Shared test data: the rules variants every game is exercised under; the optional libraries' import; the one
local Ray instance of the tests marked `ray`; the one Chromium of a test process's browser tests; and what a test needs
of the machine, which CI requires.

A test that needs something this machine may lack (a browser, a sandbox, the compiled games, the RL libraries, a
language model: `make llm`) is marked `@pytest.mark.needs(WHAT, missing)` with `missing` the reason it is absent, or
None. It is skipped where it is absent, unless `ARENA_REQUIRE_<WHAT>=1` (as .ci/run sets): then that skip, and any
other skip whose reason starts `needs WHAT:`, is a failure (`pytest_runtest_makereport`). CI cannot go green without
what it asked for."""

import importlib
import itertools
import json
import logging
import os
from pathlib import Path

# One BLAS thread a test process: the suite runs a process a core, and BLAS threads on top of them made small
# matrix products up to ten times slower in CPU time on a busy machine (numpy reads this on import).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest  # noqa: E402

NEEDS = ("browser", "sandbox", "compiled", "rl", "llm")
"""What a test may need of the machine: each has its flag ARENA_REQUIRE_<NEED>."""


def required(need: str) -> bool:
    """Whether this run requires `need` (ARENA_REQUIRE_<NEED>=1), so that a skip for want of it fails."""
    return os.environ.get(f"ARENA_REQUIRE_{need.upper()}") == "1"


def skip_for_want_of(need: str, missing: str):
    """Skips the running test for want of `need` (a failure where the run requires it)."""
    assert need in NEEDS, need
    pytest.skip(f"needs {need}: {missing}", allow_module_level=True)


def pytest_configure(config):
    if config.getoption("write_durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationWriter(), "duration-writer")
    config.addinivalue_line("markers", "needs(what, missing): skipped where `missing` is a reason, not None "
                            "(failed under ARENA_REQUIRE_<WHAT>=1); what is one of " + ", ".join(NEEDS))


def pytest_runtest_setup(item):
    for mark in item.iter_markers("needs"):
        need, missing = mark.args
        if missing is not None:
            skip_for_want_of(need, missing)


def fail_required_skip(report) -> None:
    """Turns a skip report for want of something the run requires into a failure."""
    if report.skipped and isinstance(report.longrepr, tuple):
        reason = report.longrepr[2].removeprefix("Skipped: ")
        need = reason.removeprefix("needs ").partition(":")[0] if reason.startswith("needs ") else None
        if need in NEEDS and required(need):
            report.outcome = "failed"
            report.longrepr = f"ARENA_REQUIRE_{need.upper()}=1, yet skipped: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test's skip for want of something the run requires is a failure, wherever in the test it was raised."""
    fail_required_skip((yield).get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """So is a whole module's (`import_optional`)."""
    fail_required_skip((yield).get_result())


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: a test process a core, and two more. Much of the suite's time is waiting (for Ray to start,
    for processes, browsers and clocks), which the extra processes fill: on 2 cores the whole suite once took 501 s
    in two processes, 424 s in four and 472 s in six; 339 s in three and 341 s in four later. Five against four,
    run in turns: 373 and 362 s against 393 and 346 s, the cores busy 1.86 of 2 in all four runs: the suite is
    bound by its CPU time by then, which more processes do not shorten."""
    return (os.cpu_count() or 1) + 2


def plays_on_ray(item) -> bool:
    return item.get_closest_marker("ray") is not None


DURATIONS = Path(__file__).with_name("durations.json")
"""The seconds each test of a second or more took in a whole run of the suite (setup and teardown included), by
test id: `pytest --write-durations` brings it up to date. A test it does not know counts as quick."""


def pytest_addoption(parser):
    try:
        parser.addoption("--write-durations", action="store_true",
                         help=f"write the duration of each test played to tests/{DURATIONS.name}, to order later runs")
    except ValueError:  # added already: this file is loaded as a plugin as well (tests/test_required.py)
        pass


@pytest.hookimpl(trylast=True)  # after `-m` has deselected: the runs are cut from the tests that run
def pytest_collection_modifyitems(config, items):
    """The tests marked `ray` first, one after another: they share one local Ray instance (`local_ray`), started
    once between them (a start and a shutdown cost about 11 CPU-seconds here). `-n N`'s work stealing first hands
    test process k the k-th of N runs of consecutive tests (`run_sizes`), and takes tests back only from the end of
    a run, so the first process plays them all, first. Those marked `ends_ray` as well, which shut the instance down
    themselves, come last of them.

    The tests that take a second or more (DURATIONS) start the runs, longest first, shared out so that the runs
    take about as long as each other (longest first, each to the run with the least so far; the Ray tests count for
    the first): a minute-long test started late would keep the whole suite waiting on one process. The tests of a
    module that use its module-scoped fixtures stay together and in their order, so that each fixture is set up
    once and sees what it saw before. The quick tests fill the runs, in order."""
    def place(item) -> tuple[bool, bool]:
        on_ray = plays_on_ray(item)
        return not on_ray, on_ray and item.get_closest_marker("ends_ray") is not None

    items.sort(key=place)
    processes = getattr(config, "workerinput", {}).get("workercount", 1)
    if processes == 1:
        return
    known = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    seconds = lambda item: known.get(item.nodeid, 0.0)
    on_ray = [item for item in items if plays_on_ray(item)]
    groups: dict[object, list] = {}
    for item in items:
        shares = any(definitions[-1].scope == "module" for definitions in item._fixtureinfo.name2fixturedefs.values())
        if not plays_on_ray(item) and (shares or seconds(item)):
            groups.setdefault(item.module.__name__ if shares else item, []).append(item)
    runs = [on_ray] + [[] for _ in range(processes - 1)]
    loads = [sum(map(seconds, run)) for run in runs]
    for group in sorted(groups.values(), key=lambda group: -sum(map(seconds, group))):
        k = loads.index(min(loads))
        runs[k] += group
        loads[k] += sum(map(seconds, group))
    placed = {id(item) for run in runs for item in run}
    quick = iter([item for item in items if id(item) not in placed])
    for run, size in zip(runs, run_sizes(len(items), processes), strict=True):
        run += itertools.islice(quick, max(0, size - len(run)))
    items[:] = [item for run in runs for item in run] + list(quick)


def run_sizes(tests: int, processes: int) -> list[int]:
    """How many consecutive tests `--dist worksteal` first hands each process (xdist's WorkStealingScheduling)."""
    sizes = []
    for k in range(processes):
        sizes.append((tests - sum(sizes)) // (processes - k))
    return sizes


class DurationWriter:
    """`--write-durations`: each test's phases added up as their reports reach the controlling process; at the end,
    DURATIONS holds the durations of the tests this run played, and those of the others as they were."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        known = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
        merged = {**known, **{test: round(seconds, 1) for test, seconds in self.seconds.items()}}
        DURATIONS.write_text(json.dumps({test: s for test, s in sorted(merged.items()) if s >= 1}, indent=0) + "\n")


@pytest.fixture
def local_ray(request) -> int:
    """Two Ray workers: a local instance the runner plays on rather than starting its own, started by the first test
    marked `ray` and shut down after the last (`pytest_runtest_teardown`)."""
    import ray

    assert plays_on_ray(request.node), "a test that plays on local_ray is marked `ray`"
    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level=logging.ERROR,
                 log_to_driver=False)
    return 2


DISABLED_FEATURES = ",".join([
    # Playwright's own list (chromiumSwitches in its driver), which a second --disable-features would replace
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying",
    "AimEnabled", "PreconnectToSearch",
    # and the address bar's two WebUI popups: a renderer of their own for every browser context, which no test sees.
    # Six contexts each opening the report took 23 to 25 CPU-seconds of Chromium with them, 13 to 18 without.
    "WebUIOmniboxPopup", "WebUIOmniboxAimPopup"])


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the browser tests of this test process, started by the first of them
    (tests/browser.py). From then on Playwright's driver keeps an asyncio loop marked as running in the main thread,
    where asyncio.run() then fails for the rest of the process: a test that needs asyncio runs it in a thread of its
    own."""
    from browser import find_chromium
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)  # rather than 5 s: the suite's processes share a loaded machine's cores
    with sync_playwright() as playwright:
        # no sandbox of its own: as root (CI runs as root) Chromium refuses to start with it
        browser = playwright.chromium.launch(executable_path=find_chromium(),
                                             args=["--no-sandbox", f"--disable-features={DISABLED_FEATURES}"])
        yield browser
        browser.close()


@pytest.fixture
def browse(chromium):
    """`browse(path, height=900)`: a local file or an http:// address opened in a new page of this test's own
    browser context (a fresh profile), loaded and watched (`browser.open_page`)."""
    from browser import open_page

    context = chromium.new_context()
    context.set_default_timeout(60_000)
    yield lambda path, height=900: open_page(context, path, height)
    context.close()


@pytest.fixture(params=["workers=1", pytest.param("ray", marks=pytest.mark.ray)])
def workers(request) -> int:
    """A test played with one local worker, then with Ray workers."""
    return request.getfixturevalue("local_ray") if request.param == "ray" else 1


def pytest_runtest_teardown(item, nextitem):
    if plays_on_ray(item) and not (nextitem is not None and plays_on_ray(nextitem)):
        import ray

        ray.shutdown()


VARIANTS = [
    ("caterpillar", {}),
    ("give_or_take", {}),
    ("give_or_take", {"multiply": True, "target": 61}),
    ("give_or_take", {"max_deals": 2}),
    ("go_for_it", {"players": 2}),
    ("go_for_it", {"players": 3}),
    ("go_for_it", {"players": 3, "jokers": True}),
    ("go_for_it", {"players": 4}),
    ("go_for_it", {"players": 5, "jokers": True}),
    ("go_for_it", {"players": 6}),
    ("go_for_it", {"players": 6, "jokers": True, "max_decisions": 40}),
    ("duke_of_york", {}),
    ("duke_of_york", {"values": "face_value"}),
    ("duke_of_york", {"values": "queen_eleven"}),
]
VARIANT_IDS = [f"{game}{rules or ''}" for game, rules in VARIANTS]


def import_optional(name: str):
    """The reinforcement-learning library `name` (pettingzoo, pyspiel: the extra arena[rl]), or a skip of the
    module's tests without it. CI sets ARENA_REQUIRE_RL=1, under which a missing library is an error instead:
    `make` installs the extra, so its absence there is a broken install, not an option."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        skip_for_want_of("rl", f"cannot import {name} ({error}); make installs arena[rl]")



@pytest.fixture
def opened(monkeypatch, tmp_path):
    """`opened(name)`: how many times a file of that name was opened for reading by Python's `open` (Path.read_text
    and Path.open go through it) since the test began, in this process and the children it forked (each open is
    appended to a log file, which a forked child shares)."""
    import builtins
    import io

    log = tmp_path / "opened.log"
    real = io.open

    def counting(file, mode="r", *args, **kwargs):
        if isinstance(file, str | os.PathLike) and not any(c in mode for c in "wax+"):
            fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            os.write(fd, os.path.basename(os.fspath(file)).encode() + b"\n")
            os.close(fd)
        return real(file, mode, *args, **kwargs)

    monkeypatch.setattr(io, "open", counting)
    monkeypatch.setattr(builtins, "open", counting)
    return lambda name: log.read_text().split("\n").count(name) if log.exists() else 0
