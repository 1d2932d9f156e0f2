"""Entrants bring their own bots over HTTP: tokens, `POST /api/bots`, the checker process, `arena league upload`, the
limits, the attack zoo, and uploads that then play (one-file bots, packages, command bots in Python and C, the zoo's
system-call attacker), against a real `arena league serve` in a process of its own, through real httpx, with uploads
checked and played in the real sandbox and Chromium looking at what a hostile name becomes.

Every refusal leaves the league byte for byte as it was: every file of the league directory is hashed before and
after, and so is the catalog's content (`fingerprint`)."""

import hashlib
import re
import signal
import sqlite3
import threading
import time
import zipfile
from pathlib import Path

import httpx
import pyarrow.parquet as pq
import pytest
from browser import needs_browser
from playwright.sync_api import Page, expect
from test_bundles import PACKAGE, PY_COMMAND, c_bot, entry, hostile, write_tree, zip_folder
from test_sandbox import ZOO, needs_sandbox
from test_sandbox_bundled import WRAPPER as BUNDLED_WRAPPER
from test_server import arena, one_line_error, served, wait_for

from arena.league.catalog import LeagueError

LEAGUE_TOML = """
name = "uploads"
seed = 5

[[games]]
game = "caterpillar"

[run]
workers = 1
batch_size = 2

[league]
deals = 2
placement = 1
isolation = "sandbox"

[uploads]
file_bytes = 65536
zip_bytes = 131072
request_bytes = 262144
zip_entries = 50
unpacked_bytes = 1048576
active_bots = 2
uploads_per_hour = 6
check_games = 1
"""

COUNTING = (Path(__file__).parent.parent / "docs" / "example_bot.py").read_text()
"""A one-file bot (the guide's)."""

WRAPPER = BUNDLED_WRAPPER.replace('name = "tweaked-heuristic"', 'name = "tweaked"')
"""A bot built on `heuristic`, as the sandbox's test of the bundled bots has it."""

SNOOPER = '''
import glob
import os
import sys

from arena.bots import Bot

LEAGUE, TARGETS = ...  # the test puts the league's folder and the files to try here


class Snooper(Bot):
    """Plays its checks honestly; once frozen and playing, tries to read the catalog (the tokens' table), the
    league's other uploads and frozen bots, and to write the catalog, then forfeits saying what happened."""

    name = "snooper"
    games = {"caterpillar"}

    def act(self, observation):
        if ".staged-" in __file__:  # being checked: an honest bot
            return self.rng.choice(observation.legal_moves)
        print("the snooper's own words", file=sys.stderr, flush=True)  # for its owner's eyes only
        found = {path for path in glob.glob(LEAGUE + "/*") + glob.glob(LEAGUE + "/uploads/*/*") +
                 glob.glob(LEAGUE + "/bots/*/*") if os.path.isfile(path) and path != __file__}
        read = []
        for path in TARGETS + sorted(found):
            try:
                with open(path, "rb") as file:
                    read.append(file.read(16))
            except OSError:
                pass
        try:
            with open(TARGETS[0], "ab") as file:
                file.write(b"garbage")
            wrote = "yes"
        except OSError:
            wrote = "no"
        # short: a forfeit keeps the first 80 characters or so
        raise RuntimeError(f"wrote {wrote}; {len(found)} found; {len(read)}/{len(TARGETS)} read")
'''

CALLER = {  # a package: the zoo's attacker (tests/zoo/escapes.py, added by the test) as `caller` makes it
    "bot.toml": 'entry = "caller:Caller"\n',
    "caller.py": (
        "import sys\n"
        "import escapes\n\n"
        "zoo_refused = escapes.refused\n\n\n"
        "def refused(attack, result):\n"
        "    \"\"\"The zoo's verdict on a call, also said on stderr, which its owner reads.\"\"\"\n"
        "    try:\n"
        "        said = zoo_refused(attack, result)\n"
        "    except RuntimeError as error:\n"
        "        print(f'{attack}: {error}', file=sys.stderr, flush=True)\n"
        "        raise\n"
        "    print(f'{attack}: ' + ('EPERM' if said else 'worked'), file=sys.stderr, flush=True)\n"
        "    return said\n\n\n"
        "escapes.refused = refused\n\n\n"
        "class Caller(escapes.EscapesBot):\n"
        "    name = 'caller'\n"
        "    games = {'caterpillar'}\n"
        "    defaults = {**escapes.EscapesBot.defaults, 'how': 'unshare,mount,ptrace'}\n"),
}
"""Tries `unshare(CLONE_NEWUSER)`, `mount` (as it is, then in a user and mount namespace of its own) and `ptrace` of
its child at its first move in each process, through ctypes; an escape is its crash (`escaped: ...`), a refusal
other than EPERM too, and it says each answer on stderr."""

TWO_CLASSES = "class A:\n    pass\n\n\nclass B:\n    pass\n"
"""Names no class, holds two: refused by the checker at once, without a sandbox."""

XSS = "<script>alert(1)</script>"


def make_league(tmp_path: Path, *bots: str, settles_at_once: bool = False) -> Path:
    """A small caterpillar league (LEAGUE_TOML) with these bundled bots, nothing played. One that `settles_at_once`
    takes every pair for a tie after the newcomers' placement: its player then stops, and its bots' processes end."""
    tie = 'isolation = "sandbox"\ntie_margin = 1000'  # any two ratings are a tie, at once
    (tmp_path / "league.toml").write_text(LEAGUE_TOML.replace('isolation = "sandbox"', tie) if settles_at_once
                                          else LEAGUE_TOML)
    league = tmp_path / "league"
    arena("league", "new", league, tmp_path / "league.toml")
    for bot in bots:
        arena("league", "add", league, bot, "--no-sandbox", "--games", "1")
    return league


def bomb(path: Path) -> Path:
    """A zip of 2 MiB of zeros in about 2 KiB: twice what the league lets a zip unpack to."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(entry("bot.toml"), 'entry = "zeros:Bot"\n')
        archive.writestr(entry("zeros.txt"), bytes(2 << 20))
    return path


def many(path: Path) -> Path:
    """A zip of 51 empty files, one more than the league lets a zip hold."""
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(51):
            archive.writestr(entry(f"f{i}"), "")
    return path


def token(league: Path, name: str) -> str:
    """A new token for the entrant `name` (the last line of `arena league entrant`)."""
    return arena("league", "entrant", league, name).stdout.splitlines()[-1]


def ask_as_owner(page: Page, token: str) -> None:
    """Types an entrant's token into a bot page's owner form and sends it, as its owner would."""
    page.locator("#owner-token").fill(token)
    page.locator("#owner-form").evaluate("form => form.requestSubmit()")


def fingerprint(league: Path) -> dict[str, str]:
    """The SHA-256 of every file of the league, and of the catalog's content. The catalog's write-ahead log is
    folded into the catalog first, and the log and its index are left out: readers open and close them."""
    db = sqlite3.connect(league / "catalog.sqlite")
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        dump = "\n".join(db.iterdump())
    finally:
        db.close()
    files = {str(p.relative_to(league)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(league.rglob("*"))
             if p.is_file() and not p.name.endswith(("-wal", "-shm"))}
    return {**files, "catalog content": hashlib.sha256(dump.encode()).hexdigest()}


def checkers(league: Path) -> list[str]:
    """The ids of the processes checking this league's uploads."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"arena.server.checker" in words and str(league).encode() in words:
            found.append(cmdline.parent.name)
    return found


def post(client: httpx.Client, secret: str | None, filename: str, content: bytes, **fields) -> httpx.Response:
    """`POST /api/bots` with this token (None: no Authorization header), file and form fields."""
    headers = {"Authorization": f"Bearer {secret}"} if secret is not None else {}
    return client.post("/api/bots", headers=headers, files={"file": (filename, content)}, data=fields)


def verdict(client: httpx.Client, response: httpx.Response) -> dict:
    """The verdict of the upload a 202 answer names, once the checker has given it."""
    assert response.status_code == 202, response.text
    upload = response.json()["upload"]
    return wait_for(lambda: (body := client.get(f"/api/uploads/{upload}").json())["status"] != "checking" and body,
                    "the upload is checked", 120)


def test_an_entrant_gets_a_token_once_and_the_league_keeps_only_its_slow_hash(tmp_path):
    from arena.league.entrants import SCRYPT, entrant_of

    league = make_league(tmp_path)
    shown = arena("league", "entrant", league, "alice").stdout.splitlines()
    secret = shown[-1]
    assert re.fullmatch(r"[0-9a-f]{16}\.[A-Za-z0-9_-]{43}", secret) and secret not in "\n".join(shown[:-1])
    stored = b"".join(p.read_bytes() for p in league.rglob("*") if p.is_file())
    assert secret.encode() not in stored and secret.split(".")[1].encode() not in stored
    db = sqlite3.connect(league / "catalog.sqlite")
    salt, digest = db.execute("SELECT salt, hash FROM entrants WHERE name = 'alice'").fetchone()
    assert digest == hashlib.scrypt(secret.split(".")[1].encode(), salt=salt, **SCRYPT)
    assert entrant_of(db, secret) == "alice"
    assert entrant_of(db, secret[:-1] + ("A" if secret[-1] != "A" else "B")) is None
    again = token(league, "alice")
    assert entrant_of(db, again) == "alice" and entrant_of(db, secret) is None, "a new token replaces the old"
    assert "revoked the token of 'alice'" in arena("league", "entrant", league, "alice", "--revoke").stdout
    assert entrant_of(db, again) is None
    db.close()
    for bad in (["league", "entrant", league, XSS], ["league", "entrant", league, "nobody", "--revoke"]):
        refused = arena(*bad, check=False)
        assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.stderr


@needs_sandbox
@needs_browser
def test_the_attack_zoo_is_refused_with_its_status_and_the_league_unchanged(tmp_path, browse):
    league = make_league(tmp_path, "random")
    alice, bob, carol, revoked = (token(league, name) for name in ("alice", "bob", "carol", "dave"))
    arena("league", "entrant", league, "dave", "--revoke")
    secrets = (alice, bob, carol, revoked)
    answers = []
    with served(league, "--no-play") as (process, client):
        accepted = verdict(client, post(client, alice, "counting.py", COUNTING.encode(), **{"class": "CountingBot"}))
        assert accepted == {"status": "accepted", "label": "counting", "reason": None}

        before = fingerprint(league)

        def refused(status: str, response: httpx.Response, said: str, *, unchanged: bool = True) -> None:
            """The refusal's status and line; and the league as it was `before` (each file and the catalog)."""
            answers.append(response.text)
            assert said in one_line_error(response, status), response.text
            if unchanged:
                assert fingerprint(league) == before, f"the refusal {said!r} wrote to the league"

        bot = COUNTING.encode()
        refused(401, post(client, None, "mine.py", bot), "missing, wrong or revoked token")
        refused(401, post(client, alice[:-2] + "xx", "mine.py", bot), "missing, wrong or revoked token")
        refused(401, post(client, "nonsense", "mine.py", bot), "missing, wrong or revoked token")
        refused(401, post(client, revoked, "mine.py", bot), "missing, wrong or revoked token")
        refused(403, post(client, bob, "mine.py", bot, name="counting"), "belongs to another entrant")
        refused(403, post(client, bob, "mine.py", bot, name="random"), "belongs to the league's organiser")
        refused(401, client.post("/api/bots/counting/retire", headers={"Authorization": f"Bearer {revoked}"}), "token")
        refused(403, client.post("/api/bots/counting/retire", headers={"Authorization": f"Bearer {bob}"}),
                "is not yours")
        refused(413, post(client, bob, "big.py", b"#" * 65537), "a .py may be 65,536 bytes at most")
        refused(413, post(client, bob, "big.zip", b"#" * 131073), "a .zip may be 131,072 bytes at most")
        refused(413, post(client, bob, "big.py", b"#" * 300_000), "262,144 bytes at most")  # by Content-Length, unread
        chunked = client.post("/api/bots", headers={"Authorization": f"Bearer {bob}",
                                                    "Content-Type": "multipart/form-data; boundary=x"},
                              content=(b"#" * 65536 for _ in range(5)))  # no Content-Length: counted while read
        refused(413, chunked, "passed 262,144 bytes")
        refused(400, post(client, bob, "mine.py", bot, name=XSS), "letters, digits and - _ . + only")
        refused(400, post(client, bob, "../../evil.py", bot), "(no folder)")
        refused(400, post(client, bob, "mine.txt", bot), "a .py or a .zip")
        refused(400, post(client, bob, "mine.zip", b"not a zip"), "mine.zip: not a readable zip")
        for kind, said in (("slip", "climbs out of the folder"), ("absolute", "is an absolute path"),
                           ("symlink", "is a symlink"), ("device", "is not a plain file")):
            refused(400, post(client, bob, "hostile.zip", hostile(tmp_path / f"{kind}.zip", kind).read_bytes()), said)
        refused(413, post(client, bob, "bomb.zip", bomb(tmp_path / "bomb.zip").read_bytes()),
                "bomb.zip: unpacks to 2.0 MiB, more than 1.0 MiB")
        refused(413, post(client, bob, "many.zip", many(tmp_path / "many.zip").read_bytes()),
                "51 entries, more than 50")
        refused(400, post(client, bob, "mine.py", bot, **{"class": "no such"}), "class")
        refused(400, client.post("/api/bots", headers={"Authorization": f"Bearer {bob}"}, data={"name": "x"}),
                "multipart/form-data")
        refused(400, client.post("/api/bots", headers={"Authorization": f"Bearer {bob}"}, files={"name": (None, "x")}),
                "has no `file`")
        refused(400, post(client, bob, "mine.py", bot, extra="1"), "unknown form field 'extra'")

        # a burst past the hourly limit from carol, while a reader reads the standings
        latencies, statuses, bursting = [], [], threading.Event()

        def reader() -> None:
            with httpx.Client(base_url=client.base_url, timeout=30) as own:
                while bursting.is_set() or len(latencies) < 100:
                    started = time.perf_counter()
                    statuses.append(own.get("/api/standings").status_code)
                    latencies.append(time.perf_counter() - started)

        def upload(answers: list) -> None:
            with httpx.Client(base_url=client.base_url, timeout=60) as own:
                answers.append(post(own, carol, "two.py", TWO_CLASSES.encode()))

        bursting.set()
        reading = threading.Thread(target=reader)
        reading.start()
        burst: list[httpx.Response] = []
        uploaders = [threading.Thread(target=upload, args=(burst,)) for _ in range(16)]
        for thread in uploaders:
            thread.start()
        for thread in uploaders:
            thread.join()
        bursting.clear()
        reading.join()
        assert set(statuses) == {200}, "the reader was answered"
        assert sorted(r.status_code for r in burst) == [202] * 6 + [429] * 10
        for response in burst:
            if response.status_code == 429:  # the six accepted meanwhile wrote: the league is checked below
                refused(429, response, "6 uploads in the last hour", unchanged=False)
        p99 = sorted(latencies)[int(0.99 * len(latencies))]
        assert p99 < 0.1, f"the reader's p99 was {p99 * 1000:.0f} ms over {len(latencies)} reads"
        for response in burst:
            if response.status_code == 202:
                assert "name the bot's class" in verdict(client, response)["reason"]
        before = fingerprint(league)
        refused(429, post(client, carol, "two.py", TWO_CLASSES.encode()), "in the last hour")

        # a hostile name: refused as a form field, refused as the bot's own name, shown as text where it appears
        xss_bot = COUNTING.replace('"counting"', repr(XSS)).encode()
        sent = post(client, bob, "xss.py", xss_bot, **{"class": "CountingBot"})
        named = verdict(client, sent)
        assert named["status"] == "refused" and XSS in named["reason"]
        answers.append(str(named))
        base = f"http://127.0.0.1:{client.base_url.port}"
        shown = {}
        for path in (f"/bots/{XSS}", f"/api/uploads/{sent.json()['upload']}"):
            seen = browse(base + path)
            shown[path] = seen.page.locator("body").inner_text()
            assert seen.dialogs == [] and not seen.exceptions, (path, seen.dialogs)
        assert XSS in shown[f"/bots/{XSS}"], "the name is shown as text"
        before = fingerprint(league)
        wrong = client.get("/api/bots/counting", headers={"Authorization": "Bearer wrong.token"})
        refused(401, wrong, "missing, wrong or revoked token")
    log = process.stderr.read()
    for secret in secrets:
        for text in (log, *answers, *(p.read_bytes().decode(errors="replace") for p in league.rglob("*")
                                     if p.is_file())):
            assert secret not in text and secret.split(".")[1] not in text


@needs_sandbox
@needs_browser
def test_accepted_uploads_play_a_round_and_a_snooper_reads_nothing(tmp_path, browse):
    league = make_league(tmp_path, "random")
    alice, bob, carol = (token(league, name) for name in ("alice", "bob", "carol"))
    (tmp_path / "counting.py").write_text(COUNTING)
    package = zip_folder(write_tree(tmp_path / "pkg", PACKAGE), tmp_path / "pkg.zip")
    with served(league) as (process, client):
        url = f"http://127.0.0.1:{client.base_url.port}/"
        upload = lambda *args: arena("league", "upload", url, *args, check=False)  # real httpx, to the real server
        one_file = upload(tmp_path / "counting.py:CountingBot", "--token", alice)
        assert one_file.exit_code == 0 and one_file.stdout.strip() == "accepted as 'counting'", one_file.stderr
        wrapper = verdict(client, post(client, alice, "tweaked.py", WRAPPER.encode()))  # its one class, found
        zipped = verdict(client, post(client, bob, "pkg.zip", package.read_bytes()))
        assert (wrapper["label"], zipped["label"]) == ("tweaked", "pkg"), (wrapper, zipped)

        catalog = league / "catalog.sqlite"
        others = sorted(str(p) for folder in ("uploads", "bots") for p in (league / folder).rglob("*") if p.is_file())
        (tmp_path / "snooper.py").write_text(SNOOPER.replace("...", repr((str(league), [str(catalog), *others])), 1))
        db = sqlite3.connect(catalog)
        secrets_before = db.execute("SELECT * FROM entrants ORDER BY name").fetchall()
        files_before = {p: p.read_bytes() for p in map(Path, others)}
        snooper = upload(tmp_path / "snooper.py:Snooper", "--token", bob)
        assert snooper.exit_code == 0, snooper.stderr

        over = upload(tmp_path / "counting.py", "--token", alice, "--name", "third")
        assert over.exit_code == 2 and "answered 429: 2 active bots already" in over.stderr, over.stderr
        refused = upload(tmp_path / "counting.py", "--token", carol, "--name", "mine", "--class", "Nothing")
        assert refused.exit_code == 2 and refused.stderr.endswith(
            f"no class 'Nothing' in {tmp_path / 'counting.py'} (classes: CountingBot)\n") and \
            refused.stderr.count("\n") == 1, refused.stderr  # refused before it is sent: the file says so
        unreachable = arena("league", "upload", "http://127.0.0.1:9/", tmp_path / "counting.py", "--token", bob,
                            check=False)
        assert unreachable.exit_code == 2 and "cannot reach the league" in unreachable.stderr

        rated = lambda: {r["bot"] for r in client.get("/api/standings").json()["variants"].get("caterpillar", [])}
        wait_for(lambda: {"counting", "tweaked", "pkg"} <= rated(), "the uploads are rated", 240)
        forfeits = wait_for(lambda: client.get("/api/bots/snooper").json().get("forfeits"), "the snooper plays", 240)
        said = forfeits[0]["fault"]
        assert f"wrote no; 0 found; 0/{len(others) + 1} read" in said, said
        assert db.execute("SELECT * FROM entrants ORDER BY name").fetchall() == secrets_before
        assert {p: p.read_bytes() for p in map(Path, others)} == files_before
        db.close()

        owner = lambda name, secret: client.get(f"/api/bots/{name}", headers={"Authorization": f"Bearer {secret}"})
        mine = owner("counting", alice).json()["owner"]
        assert mine["entrant"] == "alice" and [u["label"] for u in mine["uploads"]] == ["counting"]
        assert "owner" not in client.get("/api/bots/counting").json() and "owner" not in owner("counting", bob).json()
        words = wait_for(lambda: owner("snooper", bob).json()["owner"]["stderr"]["snooper"], "stderr is kept", 120)
        assert "the snooper's own words" in words
        assert "own words" not in owner("snooper", alice).text + client.get("/api/bots/snooper").text
        assert "own words" not in client.get("/bots/snooper").text, "the page is public until its owner asks"
        # the owner's part of the page, asked with the token in the tab
        mine = browse(f"{url}bots/snooper")
        ask_as_owner(mine.page, bob)
        expect(mine.page.locator("#owner-stderr")).to_contain_text("own words", use_inner_text=True)
        assert "accepted" in mine.page.locator("#owner-uploads").inner_text() and not mine.console_errors, mine
        theirs = browse(f"{url}bots/snooper")
        ask_as_owner(theirs.page, alice)
        expect(theirs.page.locator("#owner-note")).to_have_text("That token does not own this bot.",
                                                                use_inner_text=True)
        assert "own words" not in theirs.page.locator("body").inner_text()

        retired = client.post("/api/bots/counting/retire", headers={"Authorization": f"Bearer {alice}"})
        assert retired.json() == {"retired": ["counting"], "unchanged": [], "every_version": True,
                                  "said": "retired every version of 'counting': counting"}
        assert post(client, alice, "counting.py", COUNTING.encode(), name="third").status_code == 202, \
            "a retired bot frees its place"
    log = process.stderr.read()
    assert all(secret not in log for secret in (alice, bob, carol))


@needs_sandbox
def test_uploaded_command_bots_in_python_and_c_play_and_the_callers_system_calls_are_refused(tmp_path):
    """Zips sent over HTTP to a league that plays: a command bot in Python, one compiled from C here, and the zoo's
    `caller`, which plays on while each of its system calls answers EPERM, touching nothing of the league."""
    league = make_league(tmp_path, "random", settles_at_once=True)
    alice, bob = token(league, "alice"), token(league, "bob")
    py_command = zip_folder(write_tree(tmp_path / "pycmd", PY_COMMAND), tmp_path / "pycmd.zip")
    c_command = zip_folder(c_bot(tmp_path), tmp_path / "cbot.zip")
    caller_folder = write_tree(tmp_path / "caller", CALLER)
    (caller_folder / "escapes.py").write_bytes((ZOO / "escapes.py").read_bytes())
    caller = zip_folder(caller_folder, tmp_path / "caller.zip")
    with served(league) as (_, client):
        url = f"http://127.0.0.1:{client.base_url.port}/"
        said = arena("league", "upload", url, py_command, "--token", alice, check=False)
        assert said.exit_code == 0 and said.stdout.strip() == "accepted as 'py-command'", said.stderr
        compiled = verdict(client, post(client, alice, "cbot.zip", c_command.read_bytes()))
        assert compiled == {"status": "accepted", "label": "c-first", "reason": None}, compiled

        db = sqlite3.connect(league / "catalog.sqlite")
        tokens_before = db.execute("SELECT * FROM entrants ORDER BY name").fetchall()
        code = lambda: {p: p.read_bytes() for folder in ("uploads", "bots") for p in (league / folder).rglob("*")
                        if p.is_file()}
        code_before = code()
        said = arena("league", "upload", url, caller, "--token", bob, check=False)
        assert said.exit_code == 0 and said.stdout.strip() == "accepted as 'caller'", said.stderr
        added = set(code()) - set(code_before)

        rated = lambda: {r["bot"] for r in client.get("/api/standings").json()["variants"].get("caterpillar", [])}
        wait_for(lambda: {"py-command", "c-first", "caller"} <= rated(), "the uploads are rated", 240)
        owner = lambda: client.get("/api/bots/caller", headers={"Authorization": f"Bearer {bob}"}).json()
        words = wait_for(lambda: owner()["owner"]["stderr"]["caller"], "the caller's stderr is kept", 120)
        answers = [line for line in words if line.startswith(("unshare: ", "mount: ", "ptrace: "))]
        each_call = "unshare: EPERM|mount: EPERM|mount: EPERM|ptrace: EPERM"  # mount: as it is, then in namespaces
        assert each_call in "|".join(answers), words
        assert set(answers) == {"unshare: EPERM", "mount: EPERM", "ptrace: EPERM"}, words
        assert db.execute("SELECT * FROM entrants ORDER BY name").fetchall() == tokens_before
        db.close()
        assert {p: b for p, b in code().items() if p not in added} == code_before, "the league's code is as it was"
    games = pq.read_table(league / "results").to_pandas()
    for bot in ("py-command", "c-first", "caller"):
        its = games[[bot in players for players in games["players"]]]
        assert len(its) and its["fault_seat"].isna().all(), its["fault"].dropna().tolist()


@needs_sandbox
def test_an_upload_left_checking_by_a_killed_server_is_checked_by_the_next(tmp_path):
    league = make_league(tmp_path)
    alice = token(league, "alice")
    with served(league, "--no-play") as (process, client):
        sent = post(client, alice, "counting.py", COUNTING.encode(), **{"class": "CountingBot"})
        process.send_signal(signal.SIGKILL)
        process.wait()
    upload = sent.json()["upload"]
    db = sqlite3.connect(league / "catalog.sqlite")
    assert db.execute("SELECT status FROM uploads WHERE id = ?", (upload,)).fetchone() == ("checking",)
    db.close()
    assert wait_for(lambda: not checkers(league), "the checker dies with its server", 10)
    with served(league, "--no-play") as (_, client):
        assert verdict(client, sent) == {"status": "accepted", "label": "counting", "reason": None}


def test_a_league_that_plays_outside_the_sandbox_takes_no_uploads(tmp_path):
    from arena.league.settings import UploadLimits
    from arena.league.uploads import store_upload
    from arena.server.upload_routes import refusal

    (tmp_path / "league.toml").write_text(LEAGUE_TOML.replace('isolation = "sandbox"', 'isolation = "process"'))
    league = tmp_path / "league"
    arena("league", "new", league, tmp_path / "league.toml")
    token(league, "alice")
    before = fingerprint(league)
    with pytest.raises(LeagueError) as raised:  # what the server's POST /api/bots calls, in its thread
        store_upload(league, "alice", "counting.py", COUNTING.encode(), None, None, UploadLimits())
    assert refusal(raised.value).status_code == 403 and "takes no uploads" in str(raised.value)
    assert fingerprint(league) == before
