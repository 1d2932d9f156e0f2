"""A scripted OpenAI-compatible chat endpoint on the loopback, for the model seat's tests that need no model: it
answers each request with the next of its `answers` (the last one again once they run out), after `delay` seconds,
and counts the requests and remembers their headers. The real model's tests use llama.cpp's server (test_llm_model)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ScriptedEndpoint:
    """`with ScriptedEndpoint(["7", "1"]) as endpoint:` serves at `endpoint.url` (ends in /v1)."""

    def __init__(self, answers: list[str], delay: float = 0.0, status: int = 200) -> None:
        self.answers, self.delay, self.status = list(answers), delay, status
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append(body)
                endpoint.headers.append(dict(self.headers))
                time.sleep(endpoint.delay)
                index = min(len(endpoint.requests), len(endpoint.answers)) - 1
                text = endpoint.answers[index]
                reply = {"choices": [{"message": {"role": "assistant", "content": text}}],
                         "usage": {"prompt_tokens": 50, "completion_tokens": 2}}
                data = json.dumps(reply).encode()
                self.send_response(endpoint.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedEndpoint:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
