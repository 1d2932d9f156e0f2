"""Entrants need only a browser and a token: `/enter` (linked from the pages while entries are open) takes a zip and
shows the check's verdict in place; versions are labels everywhere (`NAME@V` retires or reinstates that version,
`NAME` every version, and the answer says which); code the league holds already is `unchanged`, reinstating nothing;
the cheap refusals (quota, size in MiB) come before anything is unpacked or played and leave no file behind. Against
one real `arena league serve` (real HTTP, the real sandbox, Chromium), shared by the tests of this module in order."""

import hashlib
import re
import sqlite3
import time
import zipfile
from pathlib import Path

import pytest
from browser import needs_browser
from playwright.sync_api import expect
from test_league import add, bot_file
from test_league import make_league as make_club_league
from test_sandbox import needs_sandbox
from test_server import arena, one_line_error, served, wait_for
from test_uploads import COUNTING, LEAGUE_TOML, ask_as_owner, post, token

from arena.league.catalog import Catalog

ENTER_TOML = (LEAGUE_TOML.replace("file_bytes = 65536", "file_bytes = 1048576")
              .replace("zip_bytes = 131072", "zip_bytes = 2097152").replace("request_bytes = 262144",
                                                                            "request_bytes = 8388608")
              .replace("uploads_per_hour = 6", "uploads_per_hour = 30"))
"""The uploads league with the sizes of a real one (a .py of 1 MiB, a request of 8 MiB) and room for the uploads
here; two active bots an entrant."""

FIRST = {
    "bot.toml": 'entry = "first:FirstBot"\n',
    "first.py": ("from arena.bots import Bot\n\n\n"
                 "class FirstBot(Bot):\n"
                 "    name = 'my-first'\n"
                 "    games = {'caterpillar'}\n\n"
                 "    def act(self, observation):\n"
                 "        return min(observation.legal_moves)\n"),
}
"""A first bot as a package in a zip, its name hyphenated as its file's."""


def first_zip(folder: Path, version: int = 1) -> Path:
    """`my-first.zip` (a second version differs by a comment); its entries dated alike, so the same version is the
    same bytes."""
    files = {**FIRST, "first.py": FIRST["first.py"] + ("" if version == 1 else f"# version {version}\n")}
    path = folder / f"v{version}" / "my-first.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0)), text)
    return path


def statuses(league: Path) -> dict[str, str]:
    catalog = Catalog(league)
    try:
        return {b.label: b.status for b in catalog.bots()}
    finally:
        catalog.close()


def entered(league: Path) -> tuple:
    """What an upload could leave in a league that plays meanwhile: each file under bots/ and uploads/ with its
    hash, and the catalog's bots, owners and uploads."""
    files = {str(p.relative_to(league)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "folder"
             for name in ("bots", "uploads") for p in (league / name).rglob("*")}
    db = sqlite3.connect(league / "catalog.sqlite")
    try:
        rows = [db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall() for table in ("bots", "owners",
                                                                                             "uploads")]
    finally:
        db.close()
    return files, rows


def folders(league: Path) -> set[str]:
    """Every folder and file under the league's bots/ and uploads/."""
    return {str(p.relative_to(league)) for name in ("bots", "uploads") for p in (league / name).rglob("*")} \
        if league.is_dir() else set()


@pytest.fixture(scope="module")
def league_served(tmp_path_factory):
    """A served, playing league of `random` with alice's and bob's tokens: (league, client, url, alice, bob)."""
    tmp_path = tmp_path_factory.mktemp("enter")
    (tmp_path / "league.toml").write_text(ENTER_TOML)
    league = tmp_path / "league"
    arena("league", "new", league, tmp_path / "league.toml")
    arena("league", "add", league, "random", "--no-sandbox", "--games", "1")
    alice, bob = token(league, "alice"), token(league, "bob")
    with served(league) as (process, client):
        yield league, client, f"http://127.0.0.1:{client.base_url.port}", alice, bob
    log = process.stderr.read()
    assert alice not in log and bob not in log


def test_the_cli_retires_and_reinstates_a_version_or_every_version_and_says_which(tmp_path):
    league = make_club_league(tmp_path)
    paced = bot_file(tmp_path)
    add(league, f"{paced}:Paced")
    paced.write_text(paced.read_text().replace("Random moves", "Random moves, version two"))
    add(league, f"{paced}:Paced")
    said = lambda verb, label: arena("league", verb, league, label).stdout.strip()
    assert said("retire", "paced@2") == "retired 'paced@2' (version 2 only)"
    assert statuses(league) == {"paced": "active", "paced@2": "retired"}
    assert said("retire", "paced@2") == "unchanged: paced@2 (retired)"
    assert said("reinstate", "paced@2") == "reinstated 'paced@2' (version 2 only)"
    assert said("retire", "paced@1") == "retired 'paced' (version 1 only)"
    assert said("retire", "paced") == "retired every version of 'paced': paced@2; paced retired already"
    assert said("retire", "paced") == "unchanged: every version of 'paced' is retired already (paced, paced@2)"
    assert said("reinstate", "paced") == "reinstated every version of 'paced': paced, paced@2"
    assert statuses(league) == {"paced": "active", "paced@2": "active"}
    for bad, line in (("paced@x", "a bot is NAME (every version) or NAME@V"), ("paced@3", "no bot 'paced@3'"),
                      ("nobody", "no bot 'nobody'")):
        refused = arena("league", "retire", league, bad, check=False)
        assert refused.exit_code == 2 and refused.stderr.count("\n") == 1 and line in refused.stderr, refused.stderr
    assert statuses(league) == {"paced": "active", "paced@2": "active"}, "a refusal changes nothing"


def test_an_upload_without_a_token_is_one_line(monkeypatch, tmp_path):
    monkeypatch.delenv("ARENA_LEAGUE_TOKEN", raising=False)
    (tmp_path / "counting.py").write_text(COUNTING)
    refused = arena("league", "upload", "http://127.0.0.1:9/", tmp_path / "counting.py", check=False)
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr == ("error: no token: give --token TOKEN or set ARENA_LEAGUE_TOKEN (the token the league's "
                              "organiser gave you)\n")


@needs_sandbox
@needs_browser
def test_from_the_leaderboard_a_browser_enters_my_first_zip_and_it_plays(league_served, browse, tmp_path):
    league, client, url, alice, _ = league_served
    zipped = first_zip(tmp_path)
    started = time.monotonic()
    seen = browse(url + "/")
    page = seen.page
    page.locator("#enter-link").click()  # a click, as a person would
    expect(page).to_have_url(f"{url}/enter")
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")  # loaded whole
    page.locator("#enter-token").fill(alice)
    page.locator("#enter-file").set_input_files(
        {"name": "my-first.zip", "mimeType": "application/zip", "buffer": zipped.read_bytes()})
    page.locator("#enter-form").evaluate("form => form.requestSubmit()")
    verdict, mine = page.locator("#enter-verdict"), page.locator("#entrant-bots")
    expect(verdict).to_have_attribute("data-status", re.compile("^(accepted|refused|unchanged)$"), timeout=240_000)
    expect(mine).to_contain_text("my-first", use_inner_text=True)
    seconds = time.monotonic() - started
    assert verdict.text_content() == "Accepted: my-first."
    assert "alice: 1 of 2 active bots (my-first)" in mine.inner_text() and "accepted" in mine.inner_text()
    assert not seen.exceptions and not seen.console_errors, seen
    assert not any(alice in r or alice.split(".")[1] in r for r in seen.requests), "the token is in no address"
    print(f"entered from / in {seconds:.1f} s")
    rows = wait_for(lambda: {r["bot"]: r["status"] for r in client.get("/api/standings").json()["variants"]
                             .get("caterpillar", [])}.get("my-first") and client, "my-first is rated", 240)
    assert {r["bot"]: r["status"] for r in rows.get("/api/standings").json()["variants"]["caterpillar"]}[
        "my-first"] == "active"

    again = arena("league", "upload", url, zipped, "--token", alice, check=False)  # the same code, through the CLI
    assert (again.exit_code, again.stdout) == (0, "unchanged: my-first (active)\n"), again.stderr


@needs_sandbox
@needs_browser
def test_a_second_version_is_a_label_its_page_retires_it_alone_and_its_code_again_is_unchanged(league_served, browse,
                                                                                             tmp_path):
    league, client, url, alice, bob = league_served
    second = first_zip(tmp_path, 2)
    uploaded = arena("league", "upload", url, second, "--token", alice, check=False)
    assert (uploaded.exit_code, uploaded.stdout) == (0, "accepted as 'my-first@2'\n"), uploaded.stderr
    wait_for(lambda: client.get("/api/bots/my-first@2").status_code == 200, "the view has my-first@2")

    def said_on_its_page(form: str) -> str:
        """What the page of my-first@2 says once alice asks it as its owner and sends `form`: a retirement asks
        for a second click."""
        page = browse(f"{url}/bots/my-first%402").page
        ask_as_owner(page, alice)
        expect(page.locator("#owner-actions")).to_be_visible()
        for _ in range(2 if form.startswith("retire") else 1):
            page.locator(f"#{form}").evaluate("form => form.requestSubmit()")
        verdict = page.locator("#owner-verdict")
        expect(verdict).to_have_text(re.compile("^(Retired|Reinstated|Refused|Unchanged)"))
        return verdict.text_content()

    assert said_on_its_page("retire-form") == "Retired 'my-first@2' (version 2 only)."
    assert statuses(league) == {"random": "active", "my-first": "active", "my-first@2": "retired"}
    assert said_on_its_page("reinstate-form") == "Reinstated 'my-first@2' (version 2 only)."
    assert statuses(league)["my-first@2"] == "active"

    headers = {"Authorization": f"Bearer {alice}"}
    retired = client.post("/api/bots/my-first%402/retire", headers=headers)
    assert retired.json() == {"retired": ["my-first@2"], "unchanged": [], "every_version": False,
                              "said": "retired 'my-first@2' (version 2 only)"}
    back = client.post("/api/bots/my-first%402/reinstate", headers=headers)
    assert back.json() == {"reinstated": ["my-first@2"], "unchanged": [], "every_version": False,
                           "said": "reinstated 'my-first@2' (version 2 only)"}
    assert client.post("/api/bots/my-first%402/retire", headers=headers).json()["retired"] == ["my-first@2"]
    assert one_line_error(client.post("/api/bots/my-first%402/retire", headers={"Authorization": f"Bearer {bob}"}),
                          403) == "the bot 'my-first' is not yours"
    assert one_line_error(client.post("/api/bots/my-first%409/retire", headers=headers), 404).startswith(
        "no bot 'my-first@9'")
    assert statuses(league)["my-first"] == "active"

    again = arena("league", "upload", url, second, "--token", alice, check=False)
    assert (again.exit_code, again.stdout) == (0, "unchanged: my-first@2 (retired)\n"), again.stderr
    # the same code in other bytes (zipped again, other dates) is found unchanged by the checker, not at once
    rezipped = tmp_path / "again" / "my-first.zip"
    rezipped.parent.mkdir()
    with zipfile.ZipFile(second) as source, zipfile.ZipFile(rezipped, "w") as archive:
        for item in source.infolist():
            archive.writestr(zipfile.ZipInfo(item.filename, (2026, 2, 2, 0, 0, 0)), source.read(item))
    sent = post(client, alice, "my-first.zip", rezipped.read_bytes())
    assert sent.status_code == 202
    upload = sent.json()["upload"]
    found = wait_for(lambda: (body := client.get(f"/api/uploads/{upload}").json())["status"] != "checking" and body,
                     "the checker's verdict", 60)
    assert found == {"status": "unchanged", "label": "my-first@2", "reason": "unchanged: my-first@2 (retired)"}
    assert statuses(league)["my-first@2"] == "retired", "nothing reinstated"
    assert not (league / "uploads" / upload).exists(), "the league keeps no copy of code it did not take"


@needs_sandbox
def test_past_the_quota_and_over_the_size_refusals_come_at_once_and_leave_nothing(league_served, tmp_path):
    league, client, url, alice, bob = league_served
    (tmp_path / "counting.py").write_text(COUNTING)
    accepted = arena("league", "upload", url, tmp_path / "counting.py", "--token", alice, check=False)
    assert accepted.stdout == "accepted as 'counting'\n", accepted.stderr  # alice's second active bot: her quota
    before = entered(league)
    third = COUNTING.replace('"counting"', '"third"')
    for filename, content, fields in (("third.py", third.encode(), {}), ("third.py", third.encode(), {"name": "x"}),
                                      ("my-third.zip", first_zip(tmp_path, 3).read_bytes(), {})):
        started = time.monotonic()
        refused = post(client, alice, filename, content, **fields)
        seconds = time.monotonic() - started
        assert one_line_error(refused, 429).startswith("2 active bots already (counting, my-first), the most"), \
            refused.text
        assert seconds < 10, seconds
        print(f"{filename} {fields}: refused past the quota in {seconds:.3f} s")
    assert entered(league) == before, "no new file or folder in the league, nothing recorded"

    for size, said in ((4 << 20, "the file is 4.0 MiB; a .py may be 1.0 MiB at most here"),
                       (9 << 20, "the request is 9.0 MiB; this league takes 8.0 MiB at most")):
        started = time.monotonic()
        big = post(client, bob, "big.py", b"#" * size)
        assert one_line_error(big, 413) == said
        print(f"{size >> 20} MiB .py: 413 in {time.monotonic() - started:.3f} s")
    assert entered(league) == before

    # three new bots sent one after another while bob has room for two: the third is refused, by the checker before
    # its sandbox when the first two were still being checked as it came (each passes the cheap checks), or at once
    # when the checker had accepted them already; either way no folder is left in bots/ or uploads/ for it
    files = folders(league)
    sent = [post(client, bob, f"{name}.py", COUNTING.replace('"counting"', f'"{name}"').encode())
            for name in ("one", "two", "three")]
    said = [wait_for(lambda one=one: (body := client.get(f"/api/uploads/{one.json()['upload']}").json())[
        "status"] != "checking" and body, "the verdicts", 120) for one in sent[:2]]
    assert [s["status"] for s in said] == ["accepted", "accepted"], said
    full = "2 active bots already (one, two), the most an entrant may have here; retire one first"
    if sent[2].status_code == 429:
        assert one_line_error(sent[2], 429).startswith(full + ", or give the name"), sent[2].text
    else:
        upload = sent[2].json()["upload"]
        third = wait_for(lambda: (body := client.get(f"/api/uploads/{upload}").json())["status"] != "checking"
                         and body, "the third's verdict", 120)
        assert (third["status"], third["reason"]) == ("refused", full), third
        assert f"uploads/{upload}" not in folders(league)
    accepted = {one.json()["upload"] for one in sent[:2]}
    left = folders(league) - files
    assert any(path.startswith("bots/") for path in left), left  # the two accepted bots' frozen code
    # and their uploads' files, nothing of the third's
    assert all(path == "uploads" or path.startswith("bots/") or path.split("/")[1] in accepted for path in left), left
    assert not any(".staged-" in path for path in folders(league))


@needs_sandbox
def test_every_version_is_said_so_and_closed_entries_say_when(league_served):
    league, client, url, alice, _ = league_served
    every = client.post("/api/bots/my-first/retire", headers={"Authorization": f"Bearer {alice}"}).json()
    assert every == {"retired": ["my-first"], "unchanged": ["my-first@2"], "every_version": True,
                     "said": "retired every version of 'my-first': my-first; my-first@2 retired already"}
    assert 'id="enter-link"' in client.get("/rounds").text
    closed = arena("league", "close", league).stdout
    when = closed.split()[3].rstrip(";")
    wait_for(lambda: "enter-link" not in client.get("/").text, "the link goes once entries close")
    page = client.get("/enter").text
    assert f"Entries closed at <time>{when}</time>" in page and 'id="enter-file"' not in page
    assert one_line_error(post(client, alice, "late.py", COUNTING.encode()), 403) == f"entries closed at {when}"
    assert client.get("/enter/bots").status_code == 401  # the entrant's part needs their token, as a header
    mine = client.get("/enter/bots", headers={"Authorization": f"Bearer {alice}"}).text
    assert "alice: 1 of 2 active bots (counting)" in " ".join(mine.split())
    assert all(f'href="/bots/{label}"' in mine for label in ("my-first", "my-first%402", "counting"))


def test_the_link_shows_only_while_a_sandboxed_league_takes_entries():
    from datetime import UTC, datetime, timedelta

    from arena.bots.bundles import size_text
    from arena.league.settings import UploadLimits
    from arena.server.render import templates
    from arena.server.views import View

    def page(view: View) -> str:
        return templates.get_template("enter.html").render(view=view, version=1, limits=UploadLimits(), size=size_text)

    later, earlier = datetime.now(UTC) + timedelta(days=1), datetime(2026, 1, 1, tzinfo=UTC)
    open_until = page(View("club", closes=later))
    assert 'id="enter-link"' in open_until and 'id="enter-file"' in open_until
    assert "Entries are open until" in open_until
    assert "A <code>.py</code> may weigh 1.0 MiB, a <code>.zip</code> 20.0 MiB" in " ".join(open_until.split())
    closed = page(View("club", closes=earlier))
    assert 'id="enter-link"' not in closed and 'id="enter-file"' not in closed
    assert "Entries closed at <time>2026-01-01T00:00:00Z</time>" in closed and 'id="enter-token"' in closed
    unsandboxed = page(View("club", uploads=False))
    assert 'id="enter-link"' not in unsandboxed and "takes no uploads" in unsandboxed
