"""Replays LSP transcripts against `opscope lsp`, like clangd's lit tests: each *.lsp file in this
folder is one session against a fresh server, with a committed index (fixtures/) instead of a
real export, so the whole folder runs in about a second.

  python replay.py --opscope build/server/opscope [NAME.lsp ...]

A transcript is read line by line:
  # ...                 a comment
  %file PATH            writes the lines up to `%end` to PATH in the session's workspace folder
  %open PATH [VERSION]  textDocument/didOpen with that file's text (languageId yaml, json or python)
  %change PATH VERSION  textDocument/didChange, the whole text: the lines up to `%end`
  --> JSON              a message the client sends (JSON may continue on the next lines)
  <-- JSON              a message the server must send: waits for the first one not matched yet
                        that matches (dicts: the keys given; lists: element by element)
In JSON and files, ${ROOT} is the workspace folder, ${ROOT_URI} its file:// URI and ${FIXTURES}
the fixtures folder. In expected JSON, these match more loosely:
  {"$contains": [A, ...]}   a list holding an element matching each of A, ...
  {"$excludes": [A, ...]}   a list holding no element matching any of A, ...
  {"$all": A}               a list whose every element matches A
  {"$items": [MIN, MAX]}    a list of MIN to MAX elements (combines with the three above)
  {"$has": [S, ...]}        a string holding each of the strings S, ...
  {"$lacks": [S, ...]}      a string holding none of them
  {"$regex": R}             a string in which the regular expression R is found
  "$absent"                 (as a value in a dict) the key is not there
The server's own requests are answered (workspace/configuration with {}, everything else with
null) and may be expected too. After the last line the runner shuts the server down and requires
exit code 0: a transcript fails on a crash as well as on a wrong answer.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from lsp_client import encode, read_message  # noqa: E402  (tests/lsp, one framing for all)

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
WAIT_S = 10.0  # per expected message; a transcript that passes takes milliseconds


class TranscriptError(Exception):
    pass


# ---------------------------------------------------------------- matching

def mismatch(expected, actual, where="") -> str | None:
    """Why `actual` does not match `expected`, or None when it does."""
    if isinstance(expected, dict) and any(k.startswith("$") for k in expected):
        return operator_mismatch(expected, actual, where)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where or 'message'}: expected an object, got {short(actual)}"
        for key, value in expected.items():
            if value == "$absent":
                if key in actual:
                    return f"{where}.{key}: expected no such key, got {short(actual[key])}"
                continue
            if key not in actual:
                return f"{where}.{key}: missing"
            problem = mismatch(value, actual[key], f"{where}.{key}")
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where}: expected {len(expected)} elements, got {short(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            problem = mismatch(e, a, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if type(expected) is not type(actual) or expected != actual:
        return f"{where}: expected {short(expected)}, got {short(actual)}"
    return None


def operator_mismatch(expected: dict, actual, where: str) -> str | None:
    unknown = set(expected) - {"$contains", "$excludes", "$all", "$items", "$has", "$lacks",
                               "$regex"}
    if unknown:
        raise TranscriptError(f"unknown matcher {sorted(unknown)}")
    if {"$has", "$lacks", "$regex"} & set(expected):
        if not isinstance(actual, str):
            return f"{where}: expected a string, got {short(actual)}"
        for text in expected.get("$has", []):
            if text not in actual:
                return f"{where}: {text!r} not in {short(actual)}"
        for text in expected.get("$lacks", []):
            if text in actual:
                return f"{where}: {text!r}, which must not be there, in {short(actual)}"
        if "$regex" in expected and not re.search(expected["$regex"], actual):
            return f"{where}: /{expected['$regex']}/ not found in {short(actual)}"
        return None
    if not isinstance(actual, list):
        return f"{where}: expected a list, got {short(actual)}"
    low, high = expected.get("$items", [0, float("inf")])
    if not low <= len(actual) <= high:
        return f"{where}: expected {low} to {high} elements, got {len(actual)}"
    for wanted in expected.get("$contains", []):
        if all(mismatch(wanted, a) for a in actual):
            return f"{where}: no element matches {short(wanted)}"
    if "$all" in expected:
        for i, a in enumerate(actual):
            problem = mismatch(expected["$all"], a, f"{where}[{i}]")
            if problem:
                return problem
    for unwanted in expected.get("$excludes", []):
        for i, a in enumerate(actual):
            if not mismatch(unwanted, a):
                return f"{where}[{i}]: matches {short(unwanted)}, which must not be there"
    return None


def short(value, limit=300) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[:limit] + "..."


# ---------------------------------------------------------------- the server

class Server:
    def __init__(self, opscope: Path, root: Path):
        env = dict(os.environ, XDG_CACHE_HOME=str(root / ".cache"),
                   XDG_CONFIG_HOME=str(root / ".config"), OPSCOPE_LSP_POLL_MS="200")
        self.proc = subprocess.Popen([str(opscope), "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root,
                                     env=env)
        self.incoming: queue.Queue = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def send(self, message: dict):
        self.proc.stdin.write(encode(message))
        self.proc.stdin.flush()

    def _read(self):
        while True:
            message = read_message(self.proc.stdout)
            if message is None:
                self.incoming.put(None)
                return
            if "method" in message and "id" in message:  # the server asks: answer as an editor
                result = ([{} for _ in message["params"]["items"]]
                          if message["method"] == "workspace/configuration" else None)
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            self.incoming.put(message)

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode(errors="replace").rstrip())

    def finish(self) -> int:
        try:
            self.send({"jsonrpc": "2.0", "id": "replay-shutdown", "method": "shutdown"})
            self.send({"jsonrpc": "2.0", "method": "exit"})
            return self.proc.wait(10)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            self.proc.kill()
            return self.proc.wait()


# ---------------------------------------------------------------- a transcript

class Session:
    def __init__(self, opscope: Path, transcript: Path, root: Path):
        self.transcript = transcript
        self.root = root
        self.server = Server(opscope, root)
        self.received: list[dict] = []
        self.matched: set[int] = set()
        self.closed = False

    def expand(self, text: str) -> str:
        return (text.replace("${ROOT_URI}", self.root.as_uri()).replace("${ROOT}", str(self.root))
                .replace("${FIXTURES}", str(FIXTURES)))

    def expect(self, expected, line: int):
        deadline = time.monotonic() + WAIT_S
        checked = 0
        wrong_answer = False
        while not wrong_answer:
            for i in range(checked, len(self.received)):
                if i not in self.matched and not mismatch(expected, self.received[i]):
                    self.matched.add(i)
                    return
                # A response comes once: a wrong one fails at once instead of at the timeout.
                wrong_answer = wrong_answer or is_answer_to(expected, self.received[i])
            checked = len(self.received)
            left = deadline - time.monotonic()
            if wrong_answer or self.closed or left <= 0:
                break
            try:
                message = self.server.incoming.get(timeout=left)
            except queue.Empty:
                break
            if message is None:
                self.closed = True
            else:
                self.received.append(message)
        unmatched = [self.received[i] for i in range(len(self.received)) if i not in self.matched]
        closest = "\n".join(f"    {short(m)}\n      ({mismatch(expected, m)})"
                            for m in unmatched if same_kind(expected, m))
        reason = ("the answer does not match" if wrong_answer else "the server exited"
                  if self.closed else f"nothing in {WAIT_S:.0f} s matches")
        raise TranscriptError(
            f"line {line}: {reason}\n    {short(expected)}\n  messages of that kind not matched "
            f"yet:\n{closest or '    (none)'}\n  server stderr: {self.server.stderr[-5:]}")

    def open_params(self, path: str, version: int) -> dict:
        text = (self.root / path).read_text()
        language = "json" if path.endswith(".json") else "python" if path.endswith(".py") else "yaml"
        return {"textDocument": {"uri": (self.root / path).as_uri(), "languageId": language,
                                 "version": version, "text": text}}

    def run(self):
        lines = self.transcript.read_text().splitlines()
        i = 0
        while i < len(lines):
            line, number = lines[i], i + 1
            i += 1
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith(("%file ", "%change ")):
                words = line.split()
                block = []
                while i < len(lines) and lines[i] != "%end":
                    block.append(lines[i])
                    i += 1
                if i == len(lines):
                    raise TranscriptError(f"line {number}: no %end")
                i += 1
                text = self.expand("\n".join(block) + "\n")
                if words[0] == "%file":
                    target = self.root / words[1]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(text)
                else:
                    self.server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                                      "params": {"textDocument": {
                                          "uri": (self.root / words[1]).as_uri(),
                                          "version": int(words[2])},
                                          "contentChanges": [{"text": text}]}})
            elif line.startswith("%open "):
                words = line.split()
                version = int(words[2]) if len(words) > 2 else 1
                self.server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                                  "params": self.open_params(words[1], version)})
            elif line.startswith(("-->", "<--")):
                body = [line[3:]]
                while i < len(lines) and lines[i].startswith((" ", "\t")):
                    body.append(lines[i])
                    i += 1
                try:
                    message = json.loads(self.expand("\n".join(body)))
                except json.JSONDecodeError as e:
                    raise TranscriptError(f"line {number}: not JSON: {e}") from None
                if line.startswith("-->"):
                    self.server.send({"jsonrpc": "2.0", **message})
                else:
                    self.expect(message, number)
            else:
                raise TranscriptError(f"line {number}: cannot read {line!r}")
        code = self.server.finish()
        if code != 0:
            raise TranscriptError(f"the server exited with {code}; stderr: "
                                  f"{self.server.stderr[-5:]}")


def is_answer_to(expected, message) -> bool:
    """`message` answers the request `expected` is the answer to (a response comes once)."""
    return (isinstance(expected, dict) and "id" in expected and "method" not in expected
            and "method" not in message and message.get("id") == expected["id"])


def same_kind(expected, message) -> bool:
    if not isinstance(expected, dict):
        return True
    if "method" in expected:
        return message.get("method") == expected["method"]
    if "id" in expected:
        return message.get("id") == expected["id"]
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opscope", required=True, type=Path, help="the built opscope binary")
    parser.add_argument("--show", action="store_true",
                        help="print every message the server sent (to write a transcript)")
    parser.add_argument("transcripts", nargs="*", type=Path,
                        help="transcripts to replay (default: every *.lsp beside this script)")
    args = parser.parse_args()
    if not args.opscope.is_file() or not os.access(args.opscope, os.X_OK):
        print(f"FAIL: the opscope binary {args.opscope} does not exist or is not executable "
              "(build it, or pass --opscope)", file=sys.stderr)
        return 1
    args.opscope = args.opscope.resolve()  # the server runs in the session's folder
    transcripts = args.transcripts or sorted(HERE.glob("*.lsp"))
    if not transcripts:
        print(f"FAIL: no transcripts in {HERE}", file=sys.stderr)
        return 1
    failed = 0
    start = time.monotonic()
    for transcript in transcripts:
        began = time.monotonic()
        root = Path(tempfile.mkdtemp(prefix="opscope-transcript-")).resolve()
        session = Session(args.opscope, transcript, root)
        try:
            session.run()
            if args.show:
                for message in session.received:
                    print("<--", json.dumps(message))
            print(f"ok    {transcript.name} ({(time.monotonic() - began) * 1000:.0f} ms)")
        except TranscriptError as e:
            failed += 1
            session.server.proc.kill()
            print(f"FAIL  {transcript.name}: {e}")
        finally:
            session.server.proc.wait()
            shutil.rmtree(root, ignore_errors=True)
    print(f"{len(transcripts) - failed} of {len(transcripts)} transcripts passed in "
          f"{time.monotonic() - start:.2f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
