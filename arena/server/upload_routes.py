"""The upload routes of `arena league serve`: `POST /api/bots` (an entrant's upload), `GET /api/uploads/{id}` (its
verdict), `POST /api/bots/{label}/retire` and `/reinstate`, and who a request's Bearer token belongs to.

Each refusal is its own status with one line, and writes nothing: 401 (no token, a wrong or revoked one), 400 (a
bad form), 413 (too large: refused from Content-Length before the body is read, else counted while it is read),
403 (another's bot name, or entries closed), 429 (too many uploads an hour, or too many active bots). The token is
hashed with scrypt in a thread, and the upload stored in one, so readers of the league are not kept waiting meanwhile. A
token is never written anywhere: not in an answer, an error or the server's log.
"""

from __future__ import annotations

from pathlib import Path

import anyio.to_thread
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.bots.bundles import size_text
from arena.league.catalog import BotRow, LeagueError
from arena.league.entrants import Forbidden, OverLimit, Owner, Unknown
from arena.league.frozen import set_status
from arena.league.uploads import BadUpload, Held, TooLarge, authenticate, find_upload, owned_uploads, store_upload
from arena.server.player import STDERR_FOLDER
from arena.server.views import served

FORM_FIELDS = ("file", "class", "name")
STDERR_LINES = 20
"""The last lines of a bot's stderr its owner sees."""
HASHING_AT_ONCE = 1
"""Tokens checked at once: scrypt takes a core for tens of milliseconds, and a burst of uploads checked all at once
would leave the pages' readers none (and a guesser gets no faster by asking in parallel)."""
STATUSES = {BadUpload: 400, Forbidden: 403, Unknown: 404, TooLarge: 413, OverLimit: 429}
"""The status of each refusal the league's own checks make."""


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer TOKEN` header, or None."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


async def request_entrant(request: Request) -> str | None:
    """The entrant whose token the request carries, or None (no token, a wrong or a revoked one)."""
    token = bearer_token(request)
    if token is None:
        return None
    server = served(request)
    return await anyio.to_thread.run_sync(authenticate, server.directory, token, limiter=server.hashing)


async def _entrant(request: Request) -> str:
    entrant = await request_entrant(request)
    if entrant is None:
        raise HTTPException(401, "missing, wrong or revoked token: send Authorization: Bearer TOKEN, the token "
                                 "`arena league entrant` gave you", headers={"WWW-Authenticate": "Bearer"})
    return entrant


def refusal(error: LeagueError) -> HTTPException:
    """The HTTP answer to one of the league's refusals."""
    return HTTPException(next((status for kind, status in STATUSES.items() if isinstance(error, kind)), 400),
                         str(error))


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused with 413 as soon as it is known to pass `limit` bytes: from its Content-Length
    before a byte is read, else by counting while reading (a chunked body declares no length)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise HTTPException(413 if declared.isdigit() else 400,
                            f"the request is {size_text(int(declared))}; this league takes {size_text(limit)} at most"
                            if declared.isdigit() else "Content-Length: not a number")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(413, f"the request passed {size_text(limit)}, the most this league takes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _form(request: Request, body: bytes) -> tuple[UploadFile, str | None, str | None]:
    """The file and the optional class and name of an upload's multipart form (400 for anything else)."""
    async def replay() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise HTTPException(400, "send the bot as multipart/form-data: a `file`, and optionally `class` and `name`")
    try:
        form = await Request(request.scope, replay).form(max_files=1, max_fields=len(FORM_FIELDS))
    except HTTPException as error:
        raise HTTPException(400, f"a malformed form: {error.detail}".splitlines()[0]) from None
    unknown = sorted(set(form) - set(FORM_FIELDS))
    if unknown:
        raise HTTPException(400, f"unknown form field {unknown[0]!r} (fields: file, class, name)")
    twice = next((key for key in FORM_FIELDS if len(form.getlist(key)) > 1), None)
    if twice:
        raise HTTPException(400, f"the form field {twice!r} is given twice")
    file = form.get("file")
    if not isinstance(file, UploadFile):
        raise HTTPException(400, "the form has no `file`: the bot's .py or .zip")
    texts = [form.get(key) for key in ("class", "name")]
    if any(isinstance(text, UploadFile) for text in texts):
        raise HTTPException(400, "`class` and `name` are text fields, not files")
    return file, *(text or None for text in texts)


async def api_upload(request: Request) -> Response:
    """`POST /api/bots`: stores an entrant's bot for the checker; 202 `{"upload": ID}`, or 200 with `"status":
    "unchanged"` for code the league holds already for them. The cheap refusals come first: the token, entries
    closed (before the body is read), then the size, the form, the limits (arena/league/uploads.py)."""
    from arena.league.season import check_open

    server = served(request)
    entrant = await _entrant(request)
    try:
        await run_in_threadpool(check_open, server.directory)
    except LeagueError as error:
        raise refusal(error) from None
    body = await read_body(request, server.upload_limits.request_bytes)
    file, class_name, name = await _form(request, body)
    data = await file.read()
    try:
        stored = await run_in_threadpool(store_upload, server.directory, entrant, file.filename or "", data,
                                         class_name, name, server.upload_limits)
    except LeagueError as error:
        raise refusal(error) from None
    if isinstance(stored, Held):
        return JSONResponse({"upload": None, "status": "unchanged", "label": stored.label, "reason": stored.text()})
    return JSONResponse({"upload": stored}, status_code=202)


async def api_upload_status(request: Request) -> Response:
    """`GET /api/uploads/{id}`: `checking`, `accepted` (with the bot's label), `unchanged` (with the label of the
    code the league held already) or `refused` (with why)."""
    try:
        upload = await run_in_threadpool(find_upload, served(request).directory, request.path_params["id"])
    except LeagueError as error:
        raise refusal(error) from None
    return JSONResponse({"status": upload.status, "label": upload.label, "reason": upload.reason})


async def api_retire(request: Request) -> Response:
    """`POST /api/bots/{label}/retire`: stops the entrant's own bot playing, NAME@V that version, NAME every version
    (the answer says which); its games stay."""
    return await _set_status(request, "retired")


async def api_reinstate(request: Request) -> Response:
    """`POST /api/bots/{label}/reinstate`: the entrant's own retired bot plays again (NAME@V, or NAME: every
    version), within their active bots."""
    return await _set_status(request, "active")


async def _set_status(request: Request, status: str) -> Response:
    """`{"retired" | "reinstated": [labels changed], "unchanged": [labels already so], "every_version": bool,
    "said": one line}`."""
    entrant, server = await _entrant(request), served(request)
    try:
        change = await run_in_threadpool(set_status, server.directory, request.path_params["label"], status,
                                         Owner(entrant, server.upload_limits.active_bots))
    except LeagueError as error:
        raise refusal(error) from None
    return JSONResponse({"retired" if status == "retired" else "reinstated": list(change.changed),
                         "unchanged": list(change.unchanged), "every_version": change.every, "said": change.text()})


async def owner_part(request: Request, versions: list[BotRow]) -> dict:
    """What `/api/bots/{label}` adds for the owner of the bot of these `versions` (their Bearer token): `{"owner":
    {"entrant": ..., "uploads": [each upload of the name, newest first, with its verdict and reason], "stderr":
    {label: the last lines its process wrote to stderr}}}`; nothing for anyone else. A token that is wrong or
    revoked is refused (401) rather than silently shown the public answer."""
    if bearer_token(request) is None:
        return {}
    entrant = await _entrant(request)
    return await run_in_threadpool(_owner, served(request).directory, entrant, versions)


def _owner(directory: Path, entrant: str, versions: list[BotRow]) -> dict:
    """`owner_part` of the entrant's token, read from the catalog and the bots' stderr files (in a thread)."""
    uploads = owned_uploads(directory, entrant, versions[0].name)
    if uploads is None:
        return {}
    return {"owner": {"entrant": entrant,
                      "uploads": [{"upload": u.id, "status": u.status, "label": u.label, "reason": u.reason}
                                  for u in uploads],
                      "stderr": {b.label: _last_lines(directory / STDERR_FOLDER / f"{b.hash}.txt") for b in versions}}}


def _last_lines(path: Path) -> list[str]:
    try:
        return path.read_bytes().decode(errors="replace").splitlines()[-STDERR_LINES:]
    except OSError:
        return []
