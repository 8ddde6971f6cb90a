"""A minimal LSP client over stdio: JSON-RPC 2.0 with Content-Length framing.

Single-threaded on purpose: a request is written, then the client blocks on the server's
stdout until the matching response arrives, so a measured round trip holds only the pipe,
the server and one JSON parse, with no thread hand-off. Notifications that arrive in between
are kept (with their arrival time) for `wait_notification`; requests from the server
(`workspace/configuration`, `window/workDoneProgress/create`, ...) are answered on the spot.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any, Callable


class LspError(Exception):
    pass


def encode(message: dict) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class FrameReader:
    """Splits a byte stream into JSON-RPC messages; tolerant of extra headers."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        """Complete message bodies, still encoded: decoding is not part of a round trip."""
        self.buffer += data
        messages = []
        while True:
            header_end = self.buffer.find(b"\r\n\r\n")
            if header_end < 0:
                return messages
            length = None
            for line in bytes(self.buffer[:header_end]).split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            if length is None:
                raise LspError(f"frame without Content-Length: {bytes(self.buffer[:header_end])!r}")
            start = header_end + 4
            if len(self.buffer) < start + length:
                return messages
            messages.append(bytes(self.buffer[start:start + length]))
            del self.buffer[:start + length]


def file_uri(path: str | Path) -> str:
    return Path(path).resolve().as_uri()


class LspClient:
    def __init__(self, cmd: list[str], *, cwd: str | None = None, env: dict | None = None,
                 settings: dict | None = None, stderr_path: str | None = None) -> None:
        self.started_at = time.perf_counter()
        self._stderr = open(stderr_path or os.devnull, "wb")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, cwd=cwd, env=env, bufsize=0)
        self.settings = settings or {}
        self._reader = FrameReader()
        self._pending: list[tuple[float, bytes]] = []  # (arrival time, body)
        self.notifications: list[tuple[float, dict]] = []  # (arrival time, message)
        self._next_id = 0

    @property
    def pid(self) -> int:
        return self.proc.pid

    # ------------------------------------------------------------------ wire

    def _send(self, message: dict) -> None:
        try:
            self.proc.stdin.write(encode(message))
        except BrokenPipeError as exc:
            raise LspError(f"server exited (code {self.proc.poll()})") from exc

    def _read_some(self, deadline: float) -> None:
        fd = self.proc.stdout.fileno()
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise TimeoutError
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            raise TimeoutError
        data = os.read(fd, 1 << 20)
        arrived = time.perf_counter()
        if not data:
            raise LspError(f"server closed its output (exit code {self.proc.poll()})")
        self._pending.extend((arrived, body) for body in self._reader.feed(data))

    def _dispatch_pending(self, want_id: int | None) -> tuple[float, dict] | None:
        """Files notifications, answers server requests; returns the response to want_id
        with the time its last byte arrived."""
        found = None
        queue, self._pending = self._pending, []
        for arrived, body in queue:
            message = json.loads(body)
            if "method" in message and "id" in message:
                self._send({"jsonrpc": "2.0", "id": message["id"],
                            "result": self._answer_server_request(message)})
            elif "method" in message:
                self.notifications.append((arrived, message))
            elif message.get("id") == want_id and found is None:
                found = (arrived, message)
            # responses to requests we stopped waiting for are dropped
        return found

    def _answer_server_request(self, message: dict) -> Any:
        if message["method"] == "workspace/configuration":
            items = message.get("params", {}).get("items", [])
            return [self._setting(item.get("section")) for item in items]
        return None  # workDoneProgress/create, registerCapability, ...

    def _setting(self, section: str | None) -> Any:
        value: Any = self.settings
        for part in (section or "").split("."):
            if part:
                value = value.get(part) if isinstance(value, dict) else None
        return value

    # ------------------------------------------------------------------ API

    def request(self, method: str, params: Any, timeout: float = 60) -> tuple[Any, float]:
        """Sends a request and waits for its response: (result, round-trip seconds), the
        round trip ending when the response's last byte is read (before JSON decoding)."""
        self._next_id += 1
        request_id = self._next_id
        deadline = time.perf_counter() + timeout
        start = time.perf_counter()
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            found = self._dispatch_pending(request_id)
            if found is not None:
                arrived, response = found
                elapsed = arrived - start
                if "error" in response:
                    raise LspError(f"{method}: {response['error']}")
                return response.get("result"), elapsed
            try:
                self._read_some(deadline)
            except TimeoutError:
                raise LspError(f"{method}: no response within {timeout:.0f} s") from None

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_notification(self, predicate: Callable[[dict], bool], timeout: float = 60,
                          since: int = 0) -> tuple[float, dict]:
        """The first notification (from index `since` on) for which predicate holds."""
        deadline = time.perf_counter() + timeout
        checked = since
        while True:
            self._dispatch_pending(None)
            for arrived, message in self.notifications[checked:]:
                if predicate(message):
                    return arrived, message
            checked = len(self.notifications)
            try:
                self._read_some(deadline)
            except TimeoutError:
                raise LspError(f"no matching notification within {timeout:.0f} s") from None

    def drain(self, quiet_for: float = 0.05) -> None:
        """Reads until the server has been silent for `quiet_for` seconds."""
        while True:
            try:
                self._read_some(time.perf_counter() + quiet_for)
            except TimeoutError:
                self._dispatch_pending(None)
                return

    def initialize(self, root: str | Path, capabilities: dict | None = None,
                   options: dict | None = None) -> dict:
        caps = capabilities or {
            "textDocument": {
                "completion": {"completionItem": {"snippetSupport": False}},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "publishDiagnostics": {"relatedInformation": False},
                "synchronization": {"didSave": True},
            },
            "workspace": {"configuration": True, "workspaceFolders": True},
            "window": {"workDoneProgress": True},
            "general": {"positionEncodings": ["utf-16"]},
        }
        params = {
            "processId": os.getpid(),
            "rootUri": file_uri(root),
            "workspaceFolders": [{"uri": file_uri(root), "name": Path(root).name}],
            "capabilities": caps,
        }
        if options is not None:
            params["initializationOptions"] = options
        result, _ = self.request("initialize", params)
        self.notify("initialized", {})
        return result

    def did_open(self, path: str | Path, text: str, language: str = "yaml") -> str:
        uri = file_uri(path)
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": 1, "text": text}})
        return uri

    def did_change(self, uri: str, version: int, text: str) -> None:
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}]})

    def close(self, timeout: float = 5) -> None:
        if self.proc.poll() is None:
            try:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit", None)
                self.proc.wait(timeout=timeout)
            except (LspError, subprocess.TimeoutExpired, OSError):
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()

    def __enter__(self) -> "LspClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
