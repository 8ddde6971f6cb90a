"""A small LSP client for transcript tests: frames JSON-RPC over the server's
stdin/stdout, answers the server's own requests, and lets a test wait for a
response or a notification. Raw bytes can be sent to test bad input."""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(message: dict) -> bytes:
    return frame(json.dumps(message).encode())


def read_message(stream):
    """The next framed JSON-RPC message from `stream` (headers, blank line, body); None at EOF."""
    headers = {}
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return json.loads(stream.read(int(headers["content-length"])))


def file_uri(path) -> str:
    return Path(path).resolve().as_uri()


class LspClient:
    def __init__(self, binary, args=("lsp",), env=None, cwd=None, configuration=None,
                 accept_progress=True):
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.proc = subprocess.Popen([str(binary), *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=full_env, cwd=cwd)
        self.ids = itertools.count(1)
        self.responses: dict = {}
        self.notifications: list = []
        self.server_requests: list = []
        self.cond = threading.Condition()
        self.configuration = configuration or {}
        self.accept_progress = accept_progress
        # How the "user" answers window/showMessageRequest: an action title, or None (dismissed).
        self.message_action = None
        self.stderr_lines: list = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- wire
    def send_raw(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict):
        self.send_raw(encode(message))

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line.decode(errors="replace").rstrip())

    def _read(self):
        while True:
            message = read_message(self.proc.stdout)
            if message is None:
                with self.cond:
                    self.cond.notify_all()
                return
            if "method" in message and "id" in message:
                self._answer_server_request(message)
            with self.cond:
                if "method" in message and "id" not in message:
                    self.notifications.append(message)
                elif "method" not in message:
                    self.responses[json.dumps(message.get("id"))] = message
                self.cond.notify_all()

    def _answer_server_request(self, message):
        self.server_requests.append(message)
        method = message["method"]
        if method == "workspace/configuration":
            result = [self.configuration for _ in message["params"]["items"]]
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif method == "window/showMessageRequest":
            action = self.message_action
            self.send({"jsonrpc": "2.0", "id": message["id"],
                       "result": {"title": action} if action else None})
        elif method == "window/workDoneProgress/create" and not self.accept_progress:
            self.send({"jsonrpc": "2.0", "id": message["id"],
                       "error": {"code": -32603, "message": "no"}})
        else:
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    # -- requests
    def request_async(self, method, params=None) -> int:
        rid = next(self.ids)
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return rid

    def response(self, rid, timeout=30.0) -> dict:
        key = json.dumps(rid)
        deadline = time.monotonic() + timeout
        with self.cond:
            while key not in self.responses:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None and key not in self.responses:
                    raise TimeoutError(f"no response to {rid}; stderr: {self.stderr_lines[-5:]}")
                self.cond.wait(min(left, 0.2))
            return self.responses.pop(key)

    def request(self, method, params=None, timeout=30.0) -> dict:
        return self.response(self.request_async(method, params), timeout)

    def result(self, method, params=None, timeout=30.0):
        reply = self.request(method, params, timeout)
        assert "error" not in reply, reply
        return reply["result"]

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def wait_notification(self, predicate, timeout=30.0, start=0) -> dict:
        """The first notification (from index `start`) that satisfies `predicate`."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for note in self.notifications[start:]:
                    if predicate(note):
                        return note
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [n["method"] for n in self.notifications[start:]]
                    raise TimeoutError(f"notification not seen; got {seen}; "
                                       f"stderr: {self.stderr_lines[-5:]}")
                self.cond.wait(min(left, 0.2))

    def diagnostics(self, uri, predicate=lambda diags: True, timeout=60.0, start=0):
        note = self.wait_notification(
            lambda n: n["method"] == "textDocument/publishDiagnostics"
            and n["params"]["uri"] == uri and predicate(n["params"]["diagnostics"]),
            timeout, start)
        return note["params"]["diagnostics"]

    def mark(self) -> int:
        with self.cond:
            return len(self.notifications)

    # -- lifecycle
    def initialize(self, root=None, capabilities=None, options=None) -> dict:
        params = {"processId": os.getpid(), "capabilities": capabilities or {}}
        if root is not None:
            params["rootUri"] = file_uri(root)
            params["workspaceFolders"] = [{"uri": file_uri(root), "name": "w"}]
        if options is not None:
            params["initializationOptions"] = options
        result = self.result("initialize", params)
        self.notify("initialized", {})
        return result

    def open(self, path, text=None, language="yaml", version=1) -> str:
        uri = file_uri(path)
        if text is None:
            text = Path(path).read_text()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": version, "text": text}})
        return uri

    def change(self, uri, version, text=None, range_=None):
        change = {"text": text}
        if range_ is not None:
            change["range"] = range_
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})

    def shutdown_and_exit(self, timeout=10.0) -> int:
        self.result("shutdown")
        self.notify("exit")
        return self.proc.wait(timeout)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
