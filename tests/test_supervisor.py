"""arena/isolation/supervisor.py with a real child (tests/supervised.py): jobs answered in turn, each under its
deadline, one that hangs or ends its child costing itself only; a long-lived child started again, given up on, woken
for new work, and stopped with SIGINT or SIGKILL. The server's children (tests/test_server.py, tests/test_uploads.py)
and the replays' (tests/test_replay_page.py, tests/test_server_promises.py) are the same mechanism at work."""

import os
import signal
import time
from pathlib import Path

import pytest

from arena.isolation import supervisor
from arena.isolation.supervisor import ChildFailed, Supervisor, run_jobs

HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def importable(monkeypatch):
    """`python -P -m supervised` finds tests/supervised.py."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])))


def wait_for(condition, seconds: float = 10.0):
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
    return found


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_each_job_is_answered_or_costs_itself_only(tmp_path, monkeypatch):
    monkeypatch.setenv("SUPERVISED_SLEEPER", str(tmp_path / "sleeper"))
    started = time.perf_counter()
    answers = run_jobs("supervised", ["jobs"], ["2", "hang", "3", "die", "fail", "4"], 3.0)
    took = time.perf_counter() - started
    assert [a for a in answers if not isinstance(a, ChildFailed)] == [4, 6, 8]
    assert [str(a) for a in answers if isinstance(a, ChildFailed)] == [
        "no answer within 3 s", "dying: on purpose", "ValueError: bad job"]
    assert [isinstance(a, ChildFailed) for a in answers] == [False, True, False, True, True, False]
    assert 3 <= took < 15, took
    sleeper = int((tmp_path / "sleeper").read_text())
    assert wait_for(lambda: gone(sleeper), 5)  # the hung child's own child went with its process group


@pytest.fixture
def stopped():
    """Each Supervisor a test keeps, stopped when it ends (failed or not)."""
    kept: list[Supervisor] = []
    yield kept.append
    for each in kept:
        each.stop()


class Counted(Supervisor):
    """The `run` child of tests/supervised.py, its ends noted."""

    def __init__(self, folder: Path, status: int, **options) -> None:
        super().__init__("the test child", "supervised", ["run", str(folder), str(status)], **options)
        self.folder, self.ends, self.work = folder, [], False

    def starts(self) -> int:
        path = self.folder / "starts"
        return len(path.read_bytes()) if path.exists() else 0

    def ended(self, status: int) -> None:
        self.ends.append(status)

    def changed(self) -> bool:
        return self.work


def test_a_failed_child_is_started_again_with_a_warning(tmp_path, caplog, stopped):
    kept = Counted(tmp_path, 3, restart_seconds=0.1)
    stopped(kept)
    kept.start()
    wait_for(lambda: kept.starts() >= 3)
    kept.stop()
    assert kept.failure is None and kept.ends.count(3) >= 2 and set(kept.ends) <= {3, -9}  # -9: the one stopped
    assert "the test child ended (exit status 3); starting it again" in caplog.text


def test_a_child_given_up_on_says_why_and_is_not_started_again(tmp_path, caplog, stopped):
    kept = Counted(tmp_path, 3, restart_seconds=None)
    stopped(kept)
    kept.start()
    failure = "the test child ended with exit status 3 (its error is in the server's log)"
    assert wait_for(lambda: kept.failure) == failure
    time.sleep(0.3)
    kept.stop()
    assert kept.starts() == 1 and kept.ends == [3]
    assert f"{failure}; not starting it again" in caplog.text


def test_a_child_that_finished_its_work_starts_again_once_there_is_more(tmp_path, monkeypatch, stopped):
    monkeypatch.setattr(supervisor, "WAKE_SECONDS", 0.05)
    kept = Counted(tmp_path, 0)
    stopped(kept)
    kept.start()
    wait_for(lambda: kept.ends == [0])
    time.sleep(0.5)
    assert kept.starts() == 1  # no new work: no new child
    kept.work = True
    wait_for(lambda: kept.starts() >= 2)
    kept.stop()


@pytest.mark.parametrize("ignored", [False, True], ids=["", "sigint-ignored"])
@pytest.mark.parametrize("grace", [5.0, 0.0])
def test_stop_interrupts_the_child_within_its_grace_or_kills_it(tmp_path, grace, ignored, stopped):
    # ignored: started as a shell starts a background job (`arena league serve &`), SIGINT ignored, which its
    # children inherit
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN if ignored else signal.getsignal(signal.SIGINT))
    try:
        kept = Counted(tmp_path, -1, grace=grace)
        stopped(kept)
        kept.start()
        wait_for(lambda: kept.starts() == 1)
    finally:
        signal.signal(signal.SIGINT, previous)
    started = time.perf_counter()
    kept.stop()
    assert time.perf_counter() - started < 5
    assert (tmp_path / "interrupted").exists() == bool(grace)
    assert kept.ends == ([0] if grace else [-9]) and kept.starts() == 1
