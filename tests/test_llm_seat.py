"""The model seat without a model (arena/llm/): what the model sees, how its answers are read, the store that makes
its games replay, and its faults, against a scripted chat endpoint on the loopback (tests/llm_server.py). The real
model's games are in tests/test_llm_model.py."""

from __future__ import annotations

import json
import socket

import pytest
from browser import needs_browser
from llm_server import ScriptedEndpoint
from playwright.sync_api import expect
from test_replay_page import open_replay
from typer.testing import CliRunner

from arena.api import play
from arena.bots import BotError
from arena.cli import app
from arena.config import ConfigError, parse_config
from arena.games import get_game
from arena.games.caterpillar import rules as caterpillar
from arena.llm.prompt import RULES, Unreadable, decision_prompt, parse_answer, system_prompt
from arena.llm.seat import model_seat_class, split_spec
from arena.llm.store import EndpointError, Reply, Store, ask, request_key
from arena.report.replay_page import write_replay_page


def closed_port() -> int:
    """A loopback port that nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_model_sees_the_rules_then_the_observation_with_the_legal_moves_numbered():
    state = caterpillar.new_state(caterpillar.Rules(), 3)
    observation = caterpillar.observe(state, 0)
    legal = [caterpillar.move_to_str(m) for m in observation.legal_moves]
    prompt = decision_prompt(caterpillar.observation_json(observation), legal)
    assert "hand: " + " ".join(caterpillar.observation_json(observation)["hand"]) in prompt
    assert prompt.splitlines()[-len(legal) - 2] == "Legal moves:"
    assert [line.split(". ")[1] for line in prompt.splitlines()[-len(legal) - 1:-1]] == legal
    assert prompt.splitlines()[1 - len(legal) - 2].startswith("1. ")
    assert "Answer with the number" in system_prompt("caterpillar") and RULES["caterpillar"] in system_prompt(
        "caterpillar")
    assert set(RULES) == {"caterpillar", "give_or_take", "go_for_it", "duke_of_york"}


@pytest.mark.parametrize(("answer", "index"), [
    ("2", 1), (" 3.", 2), ("I play 1", 0), ("Move 2: QS", 1), ("qs", 1), ("The card 7H", 0), ("7h+", 2),
    ("take:1", 3)])
def test_an_answer_is_a_number_or_a_legal_move_in_notation(answer, index):
    assert parse_answer(answer, ["7H", "QS", "7H+", "take:1"]) == index


@pytest.mark.parametrize(("answer", "why"), [
    ("", "the answer was empty"), ("9", "9 is not the number of a legal move (1 to 2)"),
    ("0", "0 is not the number"), ("I cannot decide", "'I cannot decide' names no legal move"),
    ("KD", "'KD' names no legal move")])
def test_an_unreadable_answer_says_why(answer, why):
    with pytest.raises(Unreadable, match=why.replace("(", r"\(").replace(")", r"\)")):
        parse_answer(answer, ["7H", "QS"])


def test_the_store_keeps_each_reply_by_the_hash_of_its_request(tmp_path):
    store = Store(tmp_path / "llm")
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "seed": 1}
    assert store.get(request) is None
    store.put(request, Reply("2", 40, 1, 0.25))
    kept = json.loads((tmp_path / "llm" / f"{request_key(request)}.json").read_text())
    assert kept == {"request": request, "reply": {"text": "2", "tokens_in": 40, "tokens_out": 1, "seconds": 0.25}}
    assert store.get(request) == Reply("2", 40, 1, 0.25, stored=True)
    assert store.get({**request, "seed": 2}) is None
    # a stored reply is the answer: the endpoint is not asked (none listens here), and no key is needed
    assert ask(store, f"http://127.0.0.1:{closed_port()}/v1", request, "ARENA_NO_SUCH_KEY", 1.0).text == "2"


def test_a_failure_is_kept_too_so_a_forfeit_replays(tmp_path):
    store = Store(tmp_path)
    request = {"model": "m", "messages": []}
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(EndpointError, match="no reply from .* in 4 tries: ConnectError"):
        ask(store, url, request, None, 10.0)
    with pytest.raises(EndpointError, match="no reply from .* in 4 tries"):
        store.get(request)


@pytest.mark.parametrize(("spec", "message"), [
    ("llm:", "names no model"), ("llm:@http://x/v1", "names no model"),
    ("llm:m@ftp://x", "must start with http:// or https://")])
def test_a_bad_spec_is_one_line(spec, message):
    with pytest.raises(BotError, match=message):
        split_spec(spec)


def test_a_spec_without_url_finds_the_local_server():
    assert split_spec("llm:gemma") == ("gemma", "http://127.0.0.1:8000/v1")


def test_bad_params_are_one_line():
    with pytest.raises(BotError, match="tries must be an integer of at least 1"):
        model_seat_class("llm:m")(tries=0)
    with pytest.raises(TypeError, match="unknown parameter 'top_k'"):
        model_seat_class("llm:m")(top_k=3)


@pytest.mark.parametrize(("table", "message"), [
    ('llm = { url = "http://x/v1" }', r"bots\[0\].llm.model: missing"),
    ('llm = { model = "m", top_k = 2 }', r"bots\[0\].llm.top_k: unknown field"),
    ('llm = { model = "m", tries = 0 }', r"bots\[0\].llm: tries must be an integer of at least 1"),
    ('llm = { model = "m", url = "x" }', r"bots\[0\].llm: .* must start with http"),
    ('llm = { model = "m" }\npath = "a.py:A"', r"bots\[0\].path: a model seat"),
    ('llm = { model = "m" }\nisolation = "sandbox"', r"bots\[0\].isolation: a model seat plays")])
def test_a_bad_llm_table_is_one_line(table, message):
    text = f'name = "t"\nseed = 1\n[[games]]\ngame = "caterpillar"\ndeals = 1\n[[bots]]\nname = "m"\n{table}\n'
    with pytest.raises(ConfigError, match=message):
        parse_config(text)


def test_an_llm_table_is_a_seat_of_that_model():
    config = parse_config('name = "t"\nseed = 1\n[[games]]\ngame = "caterpillar"\ndeals = 1\n'
                          '[[bots]]\nname = "gemma"\nllm = { model = "gemma-3", url = "http://127.0.0.1:1/v1", '
                          'temperature = 0, max_tokens = 8, tries = 2, api_key_env = "ARENA_KEY" }\n'
                          '[[bots]]\nname = "random"\n')
    entry = config.bots[0]
    assert (entry.spec, entry.isolation) == ("llm:gemma-3@http://127.0.0.1:1/v1", "none")
    assert entry.params == {"temperature": 0, "max_tokens": 8, "tries": 2, "api_key_env": "ARENA_KEY"}


def test_an_illegal_answer_is_told_why_and_asked_again_then_forfeits_with_the_answer():
    with ScriptedEndpoint(["I would like the queen", "99", "pass"]) as endpoint:
        data = play("caterpillar", [f"llm:m@{endpoint.url}", "random"], seed=3, move_time_limit=1.0)
    assert (data["termination"], data["fault_seat"], data["fault"]) == ("illegal_move", 0, "illegal move 'pass'")
    assert len(endpoint.requests) == 3  # tries = 3
    first, second = endpoint.requests[0]["messages"], endpoint.requests[1]["messages"]
    assert len(first) == 1 and first[0]["role"] == "user"  # the rules open it: no system message
    assert first[0]["content"].startswith(system_prompt("caterpillar") + "\n\nseat: 0\nhand: ")
    assert second[1] == {"role": "assistant", "content": "I would like the queen"}
    assert second[2]["content"].startswith("Not a legal move: 'I would like the queen' names no legal move")
    assert "99 is not the number of a legal move" in endpoint.requests[2]["messages"][4]["content"]
    assert endpoint.requests[0]["max_tokens"] == 16 and endpoint.requests[0]["temperature"] == 0.0


def test_a_model_that_answers_numbers_plays_the_game_to_its_end():
    with ScriptedEndpoint(["1"]) as endpoint:
        data = play("caterpillar", [f"llm:m@{endpoint.url}", "random"], seed=3, move_time_limit=1.0)
    assert data["termination"] in ("normal", "court_short") and data["players"] == ["m", "random"]


def test_a_slow_endpoint_is_a_timeout_of_the_seats_own_wall_clock_limit():
    with ScriptedEndpoint(["1"], delay=0.6) as endpoint:
        seat = model_seat_class(f"llm:m@{endpoint.url}")(move_seconds=0.3)
        data = play("caterpillar", [seat, "random"], seed=3, move_time_limit=1.0)
    assert (data["termination"], data["fault_seat"]) == ("timeout", 0)
    assert data["fault"].endswith("no reply within 0.3s of wall time")


def test_the_referees_cpu_clock_leaves_a_model_seat_to_its_own():
    """A move time limit of 5 ms with a backstop of 10 times it in wall time would cut a 50 ms wait at once."""
    with ScriptedEndpoint(["1"], delay=0.05) as endpoint:
        data = play("caterpillar", [f"llm:m@{endpoint.url}", "random"], seed=3, move_time_limit=0.005)
    assert data["termination"] in ("normal", "court_short")


def test_an_endpoint_that_never_answers_is_a_crash_with_one_line():
    data = play("caterpillar", [f"llm:m@http://127.0.0.1:{closed_port()}/v1", "random"], seed=3)
    assert (data["termination"], data["fault_seat"]) == ("crash", 0)
    assert data["fault"].startswith("ModelError: no reply from http://127.0.0.1:") and "\n" not in data["fault"]


def test_the_key_is_sent_from_the_environment_and_said_nowhere(monkeypatch):
    monkeypatch.setenv("ARENA_TEST_KEY", "sk-secret-123")
    with ScriptedEndpoint(["1"], status=401) as endpoint:
        seat = model_seat_class(f"llm:m@{endpoint.url}")(api_key_env="ARENA_TEST_KEY")
        data = play("caterpillar", [seat, "random"], seed=3)
    assert endpoint.headers[0]["Authorization"] == "Bearer sk-secret-123"
    assert data["termination"] == "crash" and "HTTP 401" in data["fault"]
    assert "sk-secret" not in json.dumps(data)
    monkeypatch.delenv("ARENA_TEST_KEY")
    seat = model_seat_class(f"llm:m@{endpoint.url}")(api_key_env="ARENA_TEST_KEY")
    data = play("caterpillar", [seat, "random"], seed=3)
    assert data["fault"] == "ModelError: ARENA_TEST_KEY is not set: the model's key is read from it"


def test_the_play_command_takes_the_llm_form():
    with ScriptedEndpoint(["2"]) as endpoint:
        result = CliRunner().invoke(app, ["play", "caterpillar", f"llm:gemma@{endpoint.url}", "random", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "seat 0 gemma" in result.output


def test_a_bad_llm_spec_on_the_command_line_is_one_line_and_exit_2():
    result = CliRunner().invoke(app, ["play", "caterpillar", "llm:@x", "random"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "names no model" in result.output


def test_every_game_can_be_played_by_a_model_seat():
    with ScriptedEndpoint(["1"]) as endpoint:
        for game in RULES:
            data = play(game, [f"llm:m@{endpoint.url}", "random"], seed=5)
            assert data["termination"] not in ("crash", "illegal_move", "timeout"), (game, data["fault"])
    assert get_game("go_for_it")


@pytest.mark.slow
@needs_browser
def test_the_replay_page_shows_what_the_model_was_shown_and_answered_beside_each_move(browse, tmp_path):
    with ScriptedEndpoint(["hmm", "2", "1"]) as endpoint:
        data = play("caterpillar", [f"llm:gemma@{endpoint.url}", "random"], seed=3, move_time_limit=1.0)
    assert data["exchanges"][1] is None and data["exchanges"][0][0]["answers"] == ["hmm", "2"]
    seen = open_replay(browse, write_replay_page(data, tmp_path / "game.html"))
    asked = seen.page.locator("#asked")
    expect(asked).to_be_hidden()  # the deal, before any move
    seen.page.keyboard.press("ArrowRight")  # the model's first move
    expect(asked).to_be_visible()
    text = asked.text_content()
    assert text.startswith("gemma was shown") and "Legal moves:" in text and "1. hmm" in text
    assert "2. 2" in text
    seen.page.screenshot(path=tmp_path / "asked.png")
    seen.page.keyboard.press("ArrowRight")  # random's move: nothing asked
    expect(asked).to_be_hidden()
    assert seen.exceptions == [] and seen.console_errors == []


def test_a_league_refuses_a_model_seat_with_one_line(tmp_path):
    from test_league import add, make_league, one_line_refusal

    line = one_line_refusal(add(make_league(tmp_path), "llm:m@http://127.0.0.1:1/v1", check=False))
    assert "a model seat plays no league" in line


def test_a_seat_that_spent_its_token_budget_forfeits_its_next_decision():
    with ScriptedEndpoint(["1"]) as endpoint:  # 52 tokens an ask
        seat = model_seat_class(f"llm:m@{endpoint.url}")(token_budget=100)
        data = play("caterpillar", [seat, "random"], seed=3)
    assert (data["termination"], data["fault_seat"], data["fault"]) == (
        "timeout", 0, "token budget of 100 tokens spent")
    assert len(endpoint.requests) == 2 and len(data["deals"][0]["moves"]) == 4


@pytest.mark.slow
def test_a_match_keeps_its_exchanges_and_reproduces_and_replays_with_the_endpoint_gone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with ScriptedEndpoint(["hmm", "1"]) as endpoint:
        spec = f"llm:m@{endpoint.url}"
        ran = CliRunner().invoke(app, ["match", "caterpillar", spec, "random", "--max-deals", "2", "--workers", "1",
                                       "--no-progress"])
        asked = len(endpoint.requests)
    assert ran.exit_code == 0, ran.output
    run = next((tmp_path / "reports").glob("match-*"))
    assert len(list((run / "llm").glob("*.json"))) == asked
    assert "model seat m: " in ran.output and " asks a game" in ran.output
    again = CliRunner().invoke(app, ["reproduce", str(run), "--workers", "1"])  # nothing listens at the endpoint now
    assert again.exit_code == 0 and "reproduced: identical results" in again.output, again.output
    replayed = CliRunner().invoke(app, ["replay", str(run), "0", "--json"])
    assert replayed.exit_code == 0, replayed.output
    assert json.loads(replayed.output)["exchanges"][0][0]["answers"][:1] in (["hmm"], ["1"])
