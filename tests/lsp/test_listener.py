"""`opscope lsp --port` and `--socket` serve only the user who started the server
(issue 14: any local user could connect to --port and make the server run programs).
TCP needs the token from an owner-only file as its first line; a Unix-domain socket
is owner-only. A bad connection is closed and logged, and the right client still gets in."""

import json
import os
import re
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from lsp_client import encode

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"processId": None, "capabilities": {}}}


def read_message(sock_file):
    length = None
    while True:
        line = sock_file.readline()
        if not line:
            return None  # closed
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sock_file.read(length))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`opscope lsp ARGS` with its stderr collected."""

    def __init__(self, binary, args, env=None):
        self.proc = subprocess.Popen([str(binary), "lsp", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE,
                                     env=dict(os.environ, **(env or {})))
        self.lines = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self):
        for line in self.proc.stderr:
            with self.cond:
                self.lines.append(line.decode(errors="replace").rstrip())
                self.cond.notify_all()

    def wait_line(self, pattern, timeout=10):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines:
                    if match := re.search(pattern, line):
                        return match
                left = deadline - time.monotonic()
                assert left > 0, f"no stderr line matching {pattern!r}: {self.lines}"
                self.cond.wait(left)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def connect_tcp(port, timeout=10):
    deadline = time.monotonic() + timeout
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=timeout)
        except OSError:
            assert time.monotonic() < deadline, "server did not listen"
            time.sleep(0.05)


def is_closed_without_answer(sock) -> bool:
    """True when the server closed the connection and never wrote a byte."""
    sock.settimeout(15)
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True


def drive_session(sock):
    """initialize, shutdown, exit over `sock`: the server answers as over stdio."""
    with sock.makefile("rb") as reader:
        sock.sendall(encode(INITIALIZE))
        reply = read_message(reader)
        assert reply["id"] == 1 and "capabilities" in reply["result"]
        sock.sendall(encode({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        while (reply := read_message(reader)).get("id") != 2:
            pass
        sock.sendall(encode({"jsonrpc": "2.0", "method": "exit"}))


def test_tcp_needs_the_token_and_a_bad_client_does_not_lock_out_the_right_one(opscope_bin,
                                                                              tmp_path):
    port = free_port()
    token_file = tmp_path / "run" / "lsp.token"
    server = Server(opscope_bin, ["--port", str(port), "--token-file", str(token_file)])
    try:
        server.wait_line(r"token file: " + re.escape(str(token_file)))
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700
        token = token_file.read_text().strip()
        assert re.fullmatch(r"[0-9a-f]{64}", token)
        # An idle connection (no token yet) stays pending while others come and go.
        idle = connect_tcp(port)
        # No token: the request is not served, the connection is closed.
        no_token = connect_tcp(port)
        no_token.sendall(encode(INITIALIZE))
        assert is_closed_without_answer(no_token)
        server.wait_line(r"refused a connection from 127\.0\.0\.1:\d+: wrong token")
        # A wrong token of the right length: closed too.
        wrong = connect_tcp(port)
        wrong.sendall(("0" * 64 + "\n").encode() + encode(INITIALIZE))
        assert is_closed_without_answer(wrong)
        # The right token, with the first message in the same packet: served.
        right = connect_tcp(port)
        right.sendall((token + "\r\n").encode())
        drive_session(right)
        assert server.proc.wait(10) == 0
        assert is_closed_without_answer(idle)  # dropped once the client was chosen
        assert not token_file.exists(), "the token file outlives the server"
        for sock in (idle, no_token, wrong, right):
            sock.close()
    finally:
        server.stop()


def test_tcp_token_file_defaults_to_the_runtime_folder(opscope_bin, tmp_path):
    port = free_port()
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    server = Server(opscope_bin, ["--port", str(port)], env={"XDG_RUNTIME_DIR": str(runtime)})
    try:
        path = server.wait_line(r"token file: (\S+)").group(1)
        assert path == str(runtime / "opscope" / f"lsp-{port}.token")
        sock = connect_tcp(port)
        sock.sendall(open(path).read().encode())
        drive_session(sock)
        assert server.proc.wait(10) == 0
        sock.close()
    finally:
        server.stop()


def test_silent_connection_is_closed_after_the_token_deadline(opscope_bin, tmp_path):
    port = free_port()
    server = Server(opscope_bin, ["--port", str(port), "--token-file", str(tmp_path / "t")])
    try:
        server.wait_line("token file")
        silent = connect_tcp(port)
        started = time.monotonic()
        assert is_closed_without_answer(silent)
        waited = time.monotonic() - started
        print(f"\nsilent connection closed after {waited:.1f} s")
        assert 5 < waited < 15
        server.wait_line(r"no token within 10 s")
        silent.close()
    finally:
        server.stop()


def test_unix_socket_is_owner_only(opscope_bin, tmp_path):
    path = tmp_path / "lsp.sock"
    server = Server(opscope_bin, ["--socket", str(path)])
    try:
        server.wait_line("listening on " + re.escape(str(path)))
        assert stat.S_ISSOCK(path.stat().st_mode)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(str(path))
        drive_session(sock)
        assert server.proc.wait(10) == 0
        assert not path.exists(), "the socket outlives the server"
        sock.close()
    finally:
        server.stop()


def test_socket_path_that_is_not_a_socket_is_refused(opscope_bin, tmp_path):
    path = tmp_path / "precious.txt"
    path.write_text("keep me")
    run = subprocess.run([str(opscope_bin), "lsp", "--socket", str(path)], capture_output=True,
                         text=True, timeout=10, stdin=subprocess.DEVNULL)
    assert run.returncode != 0
    assert "not a socket" in run.stderr
    assert path.read_text() == "keep me"


OTHER_USER = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
CLIENT_AS_OTHER_USER = r"""
import socket, sys
kind, where = sys.argv[1], sys.argv[2]
try:
    if kind == "token":
        print("read:", open(where).read().strip())
    else:
        s = socket.socket(socket.AF_UNIX)
        s.connect(where)
        s.sendall(b'Content-Length: 2\r\n\r\n{}')
        print("connected:", s.recv(100))
except OSError as e:
    print("refused:", e.__class__.__name__)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user (setpriv)")
def test_another_user_can_read_neither_the_token_nor_connect_to_the_socket(opscope_bin,
                                                                            tmp_path):
    for binary in ("setpriv", "/usr/bin/python3"):  # a missing one fails, never skips
        if not shutil.which(binary):
            pytest.fail(f"{binary} not found: install util-linux / python3 to run this test")
    # A folder the other user may enter, so that only the file's own mode protects it.
    shared = Path(tempfile.mkdtemp(dir="/tmp"))
    shared.chmod(0o755)
    port = free_port()
    token_file = shared / "lsp.token"
    server = Server(opscope_bin, ["--port", str(port), "--token-file", str(token_file)])
    sock_path = shared / "lsp.sock"
    socket_server = Server(opscope_bin, ["--socket", str(sock_path)])
    try:
        server.wait_line("token file")
        socket_server.wait_line("listening on")
        for kind, where in (("token", token_file), ("socket", sock_path)):
            run = subprocess.run([*OTHER_USER, "/usr/bin/python3", "-c", CLIENT_AS_OTHER_USER, kind,
                                  str(where)], capture_output=True, text=True, timeout=30)
            assert run.stdout.startswith("refused: PermissionError"), (kind, run.stdout,
                                                                       run.stderr)
        # Both servers still serve their owner.
        sock = connect_tcp(port)
        sock.sendall(token_file.read_bytes())
        drive_session(sock)
        unix = socket.socket(socket.AF_UNIX)
        unix.connect(str(sock_path))
        drive_session(unix)
        assert server.proc.wait(10) == 0 and socket_server.proc.wait(10) == 0
        sock.close()
        unix.close()
    finally:
        server.stop()
        socket_server.stop()
        shutil.rmtree(shared, ignore_errors=True)


def test_help_explains_the_token_and_bad_combinations_are_refused(opscope_bin, tmp_path):
    run = subprocess.run([str(opscope_bin), "lsp", "--help"], capture_output=True, text=True,
                         timeout=10)
    assert run.returncode == 0
    assert "token" in run.stdout and "--socket PATH" in run.stdout and "0600" in run.stdout
    for args, complaint in ((["--port", "4000", "--socket", str(tmp_path / "s")], "not both"),
                            (["--token-file", str(tmp_path / "t")], "goes with --port"),
                            (["--socket", "/" + "x" * 200], "at most 107 bytes")):
        run = subprocess.run([str(opscope_bin), "lsp", *args], capture_output=True, text=True,
                             timeout=10, stdin=subprocess.DEVNULL)
        assert run.returncode == 2, args
        assert complaint in run.stderr, (args, run.stderr)


def test_token_file_in_a_folder_others_may_write_is_refused(opscope_bin, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    run = subprocess.run([str(opscope_bin), "lsp", "--port", str(free_port()), "--token-file",
                          str(shared / "t")], capture_output=True, text=True, timeout=10,
                         stdin=subprocess.DEVNULL)
    assert run.returncode == 2
    assert "writable by other users" in run.stderr
    assert not (shared / "t").exists()
