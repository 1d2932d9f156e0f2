"""Every exchange of a model seat kept: a request (the chat messages and settings, never the key) is answered from
the run's store (`RUN/llm/<sha256 of the request>.json`) when it holds it, else by the endpoint, and the reply is
kept there. A run's games thus replay, resume and reproduce from the store with no network and no key."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.atomic import write_atomic
from arena.errors import ArenaError

BACKOFF = (0.5, 1.0, 2.0)
"""Seconds waited before each new try of a request that met a network error or a server's error (5xx, 429)."""


DEFAULT_KEY_ENV = "OPENAI_API_KEY"
"""Where the key is read from when a seat names no `api_key_env`, as OpenAI's own client reads it: sent when set,
no key when not (a local server needs none); `api_key_env = ""` sends none at all."""


class EndpointError(ArenaError, RuntimeError):
    """The endpoint could not be reached or answered no reply after every try (one line)."""


class EndpointTimeout(EndpointError):
    """The endpoint gave no reply within the seat's wall-clock limit."""


@dataclass(frozen=True)
class Reply:
    """A model's reply to one request, as stored."""

    text: str
    tokens_in: int
    tokens_out: int
    seconds: float
    """Wall time the endpoint took (as recorded, for a reply read from the store)."""
    stored: bool = False
    """True when it was read from the store, not asked of the endpoint."""


def request_key(request: dict[str, Any]) -> str:
    """The SHA-256 of a request in canonical JSON: its file's name in the store."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class Store:
    """The exchanges of a run's model seats, a file each under `folder` (None: nothing kept, nothing read)."""

    def __init__(self, folder: str | Path | None) -> None:
        self.folder = Path(folder) if folder is not None else None

    def get(self, request: dict[str, Any]) -> Reply | None:
        """The stored reply to `request`, or None; raises the stored failure (EndpointError, EndpointTimeout) of a
        request that had none, as it was raised when the run asked."""
        if self.folder is None:
            return None
        try:
            data = json.loads((self.folder / f"{request_key(request)}.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        if "failure" in data:
            failure = data["failure"]
            raise (EndpointTimeout if failure["kind"] == "timeout" else EndpointError)(failure["text"])
        reply = data["reply"]
        return Reply(reply["text"], reply["tokens_in"], reply["tokens_out"], reply.get("seconds", 0.0), stored=True)

    def put(self, request: dict[str, Any], reply: Reply) -> None:
        """Keeps `reply` to `request` (atomically: a reader sees the whole file or none)."""
        if self.folder is None:
            return
        record = {"request": request, "reply": {"text": reply.text, "tokens_in": reply.tokens_in,
                                                "tokens_out": reply.tokens_out, "seconds": round(reply.seconds, 3)}}
        write_atomic(self.folder / f"{request_key(request)}.json", json.dumps(record, indent=1).encode())

    def fail(self, request: dict[str, Any], error: EndpointError) -> EndpointError:
        """Keeps the failure of a request that got no reply (a game that forfeits on it replays the same), and
        returns it to raise."""
        if self.folder is not None:
            kind = "timeout" if isinstance(error, EndpointTimeout) else "error"
            record = {"request": request, "failure": {"kind": kind, "text": str(error)}}
            write_atomic(self.folder / f"{request_key(request)}.json", json.dumps(record, indent=1).encode())
        return error


@functools.cache
def http_client(pid: int):
    """The process's one HTTP client (by its pid: a forked child builds its own rather than share the parent's
    connections). Every request of every seat shares its connections, kept alive, and its TLS context: a client of
    its own per request cost about 38 ms of CPU time to build here."""
    import httpx

    return httpx.Client()


def ask(store: Store, url: str, request: dict[str, Any], api_key_env: str | None, timeout: float) -> Reply:
    """The reply to a chat request: the store's, else the endpoint's (`url` ends in /v1), kept in the store; the key
    from the environment variable `api_key_env` (which must then be set), else from DEFAULT_KEY_ENV if set. Network
    and server errors are tried again after each of BACKOFF; raises EndpointTimeout past `timeout` seconds of wall
    time in all, EndpointError for an endpoint that never answers or refuses, naming no key. A timeout and an
    endpoint that never answered are kept as the request's failure (`Store.fail`); a missing key or a refusal (a
    4xx other than 429) are not: they are fixed and the run resumed."""
    stored = store.get(request)
    if stored is not None:
        return stored
    if timeout <= 0:
        raise store.fail(request, EndpointTimeout(f"{url}: no time left for this move"))
    import httpx

    client = http_client(os.getpid())
    headers = {}
    key = os.environ.get(api_key_env or DEFAULT_KEY_ENV) if api_key_env != "" else None
    if api_key_env and not key:
        raise EndpointError(f"{api_key_env} is not set: the model's key is read from it")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    deadline = time.monotonic() + timeout
    endpoint = url.rstrip("/") + "/chat/completions"
    problem = "no try"
    for wait in (*BACKOFF, None):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        started = time.monotonic()
        try:
            response = client.post(endpoint, json=request, headers=headers, timeout=left)
        except httpx.TimeoutException:
            problem = "timed out"
            break
        except httpx.HTTPError as error:
            problem = type(error).__name__ + (f": {error}" if str(error) else "")
        else:
            if response.status_code == 200:
                reply = _reply(response, time.monotonic() - started, endpoint)
                store.put(request, reply)
                return reply
            problem = f"HTTP {response.status_code}"
            if response.status_code < 500 and response.status_code != 429:  # refused: not kept (a key to fix)
                raise EndpointError(f"{endpoint}: {problem}: {_clip(response.text)}")
        if wait is None or time.monotonic() + wait >= deadline:
            break
        time.sleep(wait)
    if problem == "timed out" or time.monotonic() >= deadline:
        raise store.fail(request, EndpointTimeout(f"{endpoint}: no reply within {timeout:.3g}s of wall time"))
    raise store.fail(request, EndpointError(f"no reply from {url} in {len(BACKOFF) + 1} tries: {_clip(problem)}"))


def _reply(response: Any, seconds: float, endpoint: str) -> Reply:
    """A chat completion's text and token counts."""
    try:
        data = response.json()
        text = data["choices"][0]["message"]["content"] or ""
    except (ValueError, KeyError, IndexError, TypeError):
        raise EndpointError(f"{endpoint}: not a chat completion: {_clip(response.text)}") from None
    usage = data.get("usage") or {}
    return Reply(text, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0), seconds)


def _clip(text: str, length: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= length else text[: length - 3] + "..."
