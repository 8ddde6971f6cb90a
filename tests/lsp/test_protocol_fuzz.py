"""Sustained hostile protocol traffic through the real server (issue 14): seeded,
mutated LSP messages (didOpen/didChange/didClose of random URIs and texts,
requests at random positions, garbage, wrong types, huge ids, unknown methods,
$/cancelRequest, stray responses). Done when: no crash, every well-formed request
answered, and RSS growth after warm-up under 10 MB. OPSCOPE_PROTOCOL_FUZZ_MESSAGES
sets the count (default 10,000); OPSCOPE_PROTOCOL_FUZZ_SEED the seed."""

import json
import os
import random
import subprocess
import threading
import time

from lsp_client import file_uri, frame, read_message

MESSAGES = int(os.environ.get("OPSCOPE_PROTOCOL_FUZZ_MESSAGES", "10000"))
SEED = int(os.environ.get("OPSCOPE_PROTOCOL_FUZZ_SEED", "14"))
WARM_UP = MESSAGES // 5
SAMPLE_EVERY = 250
MAX_RSS_GROWTH_KB = 10 * 1024

CONFIG_WORDS = ["quantization_config", "global_config", "module_name_configs", "op_state_spec",
                "weight_dtype", "int8", "uint4", "layer1.*", "conv1", "palettization_config",
                "n_bits", "granularity", "per_channel", "{}", "[", "]", ":", "-", "\"", "'",
                "#", "&a", "*a", "!!str", "\t", "é", "\u2028", "\U0001F600"]
METHODS = ["textDocument/completion", "textDocument/hover", "textDocument/definition",
           "textDocument/codeAction", "workspace/executeCommand", "opscope/unknown",
           "textDocument/documentSymbol", "", "initialize", "$/unknown"]


class FuzzClient:
    """Writes framed bytes, records responses by id, answers the server's requests."""

    def __init__(self, binary, env):
        self.proc = subprocess.Popen([str(binary), "lsp", "--log-level", "error"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.answered = set()
        self.cond = threading.Condition()
        self.write_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def send_raw(self, data: bytes):
        with self.write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, message):
        self.send_raw(frame(json.dumps(message).encode()))

    def _read(self):
        while True:
            message = read_message(self.proc.stdout)
            if message is None:
                with self.cond:
                    self.cond.notify_all()
                return
            if "method" in message and "id" in message:  # the server asks: answer null
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "method" not in message:
                with self.cond:
                    self.answered.add(json.dumps(message.get("id")))
                    self.cond.notify_all()

    def wait_answered(self, ids, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                missing = [i for i in ids if i not in self.answered]
                if not missing or self.proc.poll() is not None:
                    return missing
                left = deadline - time.monotonic()
                if left <= 0:
                    return missing
                self.cond.wait(min(left, 0.2))

    def settled_rss_kb(self, messages) -> int:
        """RSS once `messages` are sent and a request after them is answered."""
        for message in messages:
            self.send(message)
        self.send({"jsonrpc": "2.0", "id": "sync", "method": "shutdown-is-not-this"})
        assert self.wait_answered(['"sync"'], 60) == []
        self.answered.discard('"sync"')
        time.sleep(2.5)  # the server hands freed memory back every 2 s
        return self.rss_kb()

    def rss_kb(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return -1


class Generator:
    def __init__(self, rng: random.Random, folder):
        self.rng = rng
        self.uris = [file_uri(folder / f"c{i}.yaml") for i in range(40)]
        self.uris += ["untitled:Untitled-1", "file:///", "file:///%00/x.yaml", "http://x/y.yaml"]
        self.next_id = 1
        self.recent_ids = []
        self.used_uris = set()

    def uri(self):
        r = self.rng.random()
        if r < 0.85:
            uri = self.rng.choice(self.uris)
        elif r < 0.95:  # a fresh URI, never seen again: per-URI state must not pile up
            uri = "file:///tmp/fuzz/%08x/c.yaml" % self.rng.getrandbits(32)
        else:
            return self.rng.choice([5, None, {"a": 1}, "", "x" * 3000, "file://" + "é" * 50])
        self.used_uris.add(uri)
        return uri

    def close_all(self):
        """didClose for every URI used so far."""
        uris, self.used_uris = self.used_uris, set()
        return [{"jsonrpc": "2.0", "method": "textDocument/didClose",
                 "params": {"textDocument": {"uri": uri}}} for uri in sorted(uris)]

    def text(self):
        r = self.rng.random()
        words = self.rng.choices(CONFIG_WORDS, k=self.rng.randrange(0, 200))
        seps = [" ", "\n", "\n  ", "\n    ", ": "]
        text = "".join(w + self.rng.choice(seps) for w in words)
        if r < 0.02:
            text = text * 200  # an occasional large document (tens of KB)
        return text

    def position(self):
        big = [-1, 2**31, 2**53, 10**6]
        pick = lambda: self.rng.choice(big) if self.rng.random() < 0.1 else self.rng.randrange(0, 60)
        return {"line": pick(), "character": pick()}

    def range_(self):
        return {"start": self.position(), "end": self.position()}

    def params(self, method):
        doc = {"uri": self.uri()}
        if method == "textDocument/didOpen":
            return {"textDocument": {**doc, "languageId": "yaml", "version": self.rng.randrange(9),
                                     "text": self.text()}}
        if method == "textDocument/didChange":
            changes = []
            for _ in range(self.rng.randrange(0, 4)):
                change = {"text": self.text()[: self.rng.randrange(0, 400)]}
                if self.rng.random() < 0.7:
                    change["range"] = self.range_()
                changes.append(change)
            return {"textDocument": {**doc, "version": self.rng.randrange(100)},
                    "contentChanges": changes}
        if method == "textDocument/didClose":
            return {"textDocument": doc}
        if method == "textDocument/codeAction":
            return {"textDocument": doc, "range": self.range_(), "context": {"diagnostics": []}}
        if method == "workspace/executeCommand":
            return {"command": self.rng.choice(["opscope.showSummary", "opscope.reloadModel", "x"]),
                    "arguments": self.rng.choice([[], [self.uri()], [1, 2], None])}
        return {"textDocument": doc, "position": self.position()}

    def mutate(self, value, depth=0):
        """Replaces one part of `value` with something of a wrong type or size."""
        r = self.rng.random()
        if isinstance(value, dict) and value and r < 0.6:
            key = self.rng.choice(list(value))
            if self.rng.random() < 0.2:
                del value[key]
            else:
                value[key] = self.mutate(value[key], depth + 1)
            return value
        if isinstance(value, list) and value and r < 0.6:
            i = self.rng.randrange(len(value))
            value[i] = self.mutate(value[i], depth + 1)
            return value
        return self.rng.choice([None, True, -1, 2**64, 1.5e308, "", "x" * 5000, [], {},
                                [[[[[[[[]]]]]]]], {"a": {"b": {"c": None}}}, "\x00"])

    def message(self):
        """Returns (bytes to send, id whose answer is owed or None)."""
        rng = self.rng
        r = rng.random()
        if r < 0.03:  # not JSON, or not an object
            garbage = rng.choice([bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 300))),
                                  b"[]", b"null", b"42", b'"str"', b"{", b"{}" * 100])
            return frame(garbage), None
        if r < 0.05:  # a response to nothing we asked
            return frame(json.dumps({"jsonrpc": "2.0", "id": rng.randrange(-5, 10**6),
                                     "result": self.mutate({"x": 1})}).encode()), None
        if r < 0.10:
            target = rng.choice(self.recent_ids or [0]) if rng.random() < 0.7 else self.mutate({})
            return frame(json.dumps({"jsonrpc": "2.0", "method": "$/cancelRequest",
                                     "params": {"id": target}}).encode()), None
        if r < 0.45:
            method = rng.choice(["textDocument/didOpen"] * 2 + ["textDocument/didChange"] * 3 +
                                ["textDocument/didClose", "workspace/didChangeWatchedFiles",
                                 "$/setTrace", "unknown/notification"])
            params = self.params(method)
            if rng.random() < 0.25:
                params = self.mutate(params)
            return frame(json.dumps({"jsonrpc": "2.0", "method": method,
                                     "params": params}).encode()), None
        method = rng.choice(METHODS[:5] * 4 + METHODS[5:])
        params = self.params(method)
        if rng.random() < 0.25:
            params = self.mutate(params)
        if rng.random() < 0.05:  # a huge or odd id: still answered, echoed
            rid = rng.choice([2**63 - 1, -(2**63), "x" * 2000, "é", ""])
        else:
            rid = self.next_id
            self.next_id += 1
            self.recent_ids = (self.recent_ids + [rid])[-20:]
        body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        if rng.random() < 0.05:
            body["params"] = rng.choice([5, "s", True])  # wrong type: an error, still an answer
        return frame(json.dumps(body).encode()), json.dumps(rid)


def test_fuzzed_protocol_messages_crash_nothing_hang_nothing_and_leak_nothing(opscope_bin,
                                                                               tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), OPSCOPE_LSP_POLL_MS="200")
    client = FuzzClient(opscope_bin, env)
    try:
        client.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                     "params": {"processId": None, "rootUri": file_uri(tmp_path),
                                "capabilities": {}}})
        assert client.wait_answered(['"init"'], 30) == []
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        generator = Generator(random.Random(SEED), tmp_path)
        owed = []
        start = time.monotonic()
        # RSS moves with the documents open at the moment, so it is measured with
        # none open: after warm-up and at the end, every document the fuzzer opened
        # is closed and all requests answered. What stays then is what leaks.
        rss_after_warm_up = None
        samples = []
        for n in range(MESSAGES):
            data, rid = generator.message()
            client.send_raw(data)
            if rid is not None:
                owed.append(rid)
            if (n + 1) % SAMPLE_EVERY == 0:
                missing = client.wait_answered(owed, 60)
                assert missing == [], f"{len(missing)} requests unanswered, e.g. {missing[:5]}"
                owed = []
                samples.append(client.rss_kb())
            if n + 1 == WARM_UP:
                rss_after_warm_up = client.settled_rss_kb(generator.close_all())
        missing = client.wait_answered(owed, 60)
        elapsed = time.monotonic() - start
        assert client.proc.poll() is None, f"the server died: exit {client.proc.returncode}"
        rss_end = client.settled_rss_kb(generator.close_all())
        growth = rss_end - rss_after_warm_up
        print(f"\n{MESSAGES} fuzzed messages (seed {SEED}) in {elapsed:.1f} s; RSS with no "
              f"document open: after warm-up ({WARM_UP} messages) {rss_after_warm_up / 1024:.1f} "
              f"MB, at the end {rss_end / 1024:.1f} MB, growth {growth / 1024:.1f} MB; peak "
              f"while fuzzing {max(samples) / 1024:.1f} MB; unanswered: {len(missing)}")
        assert missing == [], f"{len(missing)} requests never answered, e.g. {missing[:5]}"
        assert growth < MAX_RSS_GROWTH_KB
        client.send({"jsonrpc": "2.0", "id": "bye", "method": "shutdown"})
        assert client.wait_answered(['"bye"'], 30) == []
        client.send({"jsonrpc": "2.0", "method": "exit"})
        assert client.proc.wait(10) == 0
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
