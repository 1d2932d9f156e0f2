"""A child for tests/test_supervisor.py, run as `python -P -m supervised jobs JOB...` (arena/isolation/supervisor.py's
run_jobs: a job `N` answers 2N, `hang` starts a grandchild and never answers, `die` ends its process, `fail`
raises) or `python -P -m supervised run FOLDER STATUS` (a Supervisor's child: counts its starts in FOLDER/starts, a
byte each, then exits with STATUS, or with STATUS -1 sleeps until SIGINT, which it notes in FOLDER/interrupted)."""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from arena.isolation.supervisor import answer_jobs, child_arguments


def job(text: str) -> int:
    if text == "hang":
        sleeper = subprocess.Popen(["sleep", "60"])
        Path(os.environ["SUPERVISED_SLEEPER"]).write_text(str(sleeper.pid))
        time.sleep(60)
    if text == "die":
        print("dying: on purpose", file=sys.stderr, flush=True)
        os._exit(3)
    if text == "fail":
        raise ValueError("bad job\nand a second line")
    print("noise that is no answer")  # a bot that prints: it goes to stderr
    return 2 * int(text)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m supervised")
    parser.add_argument("mode", choices=["jobs", "run"])
    parser.add_argument("rest", nargs="*")
    args = child_arguments(parser, argv)
    if args.mode == "jobs":
        return answer_jobs(args.rest, job)
    folder, status = Path(args.rest[0]), int(args.rest[1])
    try:
        with open(folder / "starts", "ab") as starts:  # a byte a start
            starts.write(b"x")
        if status >= 0:
            return status
        time.sleep(60)
    except KeyboardInterrupt:
        (folder / "interrupted").touch()
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
