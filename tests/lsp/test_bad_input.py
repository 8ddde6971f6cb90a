"""The server survives bad input with the right JSON-RPC error or a log line,
and keeps answering afterwards. No model is needed for these."""

import json

from lsp_client import encode, frame
from conftest import pos, text_position

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
SERVER_NOT_INITIALIZED, REQUEST_CANCELLED, CONTENT_MODIFIED = -32002, -32800, -32801


def still_alive(client):
    """A request after the bad input gets its normal answer."""
    assert client.result("shutdown") is None
    client.notify("exit")
    assert client.proc.wait(10) == 0


def test_requests_before_initialize_are_refused(make_client):
    client = make_client()
    reply = client.request("textDocument/hover", text_position("file:///x.yaml", 0, 0))
    assert reply["error"]["code"] == SERVER_NOT_INITIALIZED
    assert "initialize" in reply["error"]["message"]
    client.initialize()
    still_alive(client)


def test_malformed_json_gets_parse_error_with_null_id(make_client):
    client = make_client()
    client.initialize()
    client.send_raw(frame(b'{"jsonrpc": "2.0", "id": 7, "method": '))
    reply = client.response(None)
    assert reply["error"]["code"] == PARSE_ERROR
    assert reply["id"] is None
    still_alive(client)


def test_missing_and_wrong_content_length(make_client):
    client = make_client()
    client.initialize()
    # No Content-Length at all: reported, and the next message still arrives.
    client.send_raw(b'Content-Type: application/json\r\n\r\n{"jsonrpc":"2.0","id":50,"method":"x"}')
    assert client.response(None)["error"]["code"] == PARSE_ERROR
    # Non-numeric, then too short: the stream resynchronises on the next header.
    client.send_raw(b"Content-Length: many\r\n\r\n{}")
    assert client.response(None)["error"]["code"] == PARSE_ERROR
    body = json.dumps({"jsonrpc": "2.0", "id": 51, "method": "shutdown"}).encode()
    client.send_raw(b"Content-Length: 10\r\n\r\n" + body)
    assert client.response(None)["error"]["code"] == PARSE_ERROR
    # Too long: the body is taken once the stream goes quiet.
    body = json.dumps({"jsonrpc": "2.0", "id": 52, "method": "workspace/unknown"}).encode()
    client.send_raw(b"Content-Length: %d\r\n\r\n" % (len(body) + 40) + body)
    assert client.response(52)["error"]["code"] == METHOD_NOT_FOUND
    # Extra headers are fine.
    client.send_raw(b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; "
                    b"charset=utf-8\r\n\r\n" % len(body) + body.replace(b"52", b"53"))
    assert client.response(53)["error"]["code"] == METHOD_NOT_FOUND
    still_alive(client)


def test_hundred_thousand_levels_of_nesting_are_refused_even_before_initialize(make_client):
    # Issue 14: params nested 100,000 levels (200 KB) killed the server with SIGSEGV.
    client = make_client()
    deep = "[" * 100_000 + "]" * 100_000
    client.send_raw(frame(b'{"jsonrpc":"2.0","id":90,"method":"initialize","params":%s}'
                          % deep.encode()))
    reply = client.response(90)
    assert reply["error"]["code"] == INVALID_REQUEST
    assert "100001 levels" in reply["error"]["message"]
    assert "limit is 512" in reply["error"]["message"]
    # The same as a notification and as a response: an error with id null, no crash.
    client.send_raw(frame(b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%s}}'
                          % deep.encode()))
    assert "100002 levels" in client.response(None)["error"]["message"]
    client.send_raw(frame(b'{"jsonrpc":"2.0","id":1,"result":%s}' % deep.encode()))
    assert "100001 levels" in client.response(None)["error"]["message"]
    client.initialize()
    still_alive(client)


def test_huge_content_length_does_not_swallow_the_next_message(make_client):
    # Issue 14: "Content-Length: 67108865" made the server drop that many bytes, so it
    # never answered again. Now: an error, then the next real header is read.
    client = make_client()
    client.initialize()
    client.send_raw(b'Content-Length: 67108865\r\n\r\n{"jsonrpc":"2.0","id":91,"method":"x"}')
    reply = client.response(None)
    assert reply["error"]["code"] == PARSE_ERROR
    assert "67108865 bytes exceeds the limit" in reply["error"]["message"]
    assert client.request("workspace/unknown", {})["error"]["code"] == METHOD_NOT_FOUND
    client.send_raw(b"Content-Length: 99999999999999999999999\r\n\r\n{}")
    assert client.response(None)["error"]["code"] == PARSE_ERROR
    still_alive(client)


def test_thousands_of_problems_publish_a_bounded_list(make_client, tmp_path):
    # A garbled 250 KB file gave 38,000 diagnostics: 80 MB and 5 s per edit.
    client = make_client()
    client.initialize(tmp_path)
    text = "quantization_config:\n  global_config:\n" + "".join(
        "    bogus_key_%d: 1\n" % i for i in range(2000))
    uri = client.open(tmp_path / "many.yaml", text)
    diagnostics = client.diagnostics(uri)
    assert len(diagnostics) == 500
    hidden, _, rest = diagnostics[-1]["message"].partition(" ")
    assert int(hidden) >= 1500 and rest.startswith("more problems are not shown")
    assert diagnostics[-1]["severity"] == 3
    still_alive(client)


def test_documents_opened_and_never_closed_are_bounded(make_client, tmp_path):
    # Issue 14: memory grew without bound under fuzzing; open documents are capped.
    client = make_client()
    client.initialize(tmp_path)
    for i in range(1000):
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": "untitled:doc-%d" % i, "languageId": "yaml", "version": 1, "text": "a: 1\n"}})
    mark = client.mark()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": "untitled:one-too-many", "languageId": "yaml", "version": 1, "text": "a: 1\n"}})
    note = client.wait_notification(lambda n: n["method"] == "window/showMessage", start=mark)
    assert note["params"]["type"] == 1
    assert "1000 documents are open" in note["params"]["message"]
    reply = client.request("textDocument/hover", text_position("untitled:one-too-many", 0, 0))
    assert "document not open" in reply["error"]["message"]
    # Closing one makes room again.
    client.notify("textDocument/didClose", {"textDocument": {"uri": "untitled:doc-0"}})
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": "untitled:one-too-many", "languageId": "yaml", "version": 1, "text": "a: 1\n"}})
    assert "result" in client.request("textDocument/hover",
                                      text_position("untitled:one-too-many", 0, 0))
    still_alive(client)


def test_invalid_requests_unknown_methods_and_invalid_params(make_client):
    client = make_client()
    client.initialize()
    client.send({"jsonrpc": "1.0", "id": 60, "method": "shutdown"})
    assert client.response(60)["error"]["code"] == INVALID_REQUEST
    client.send({"jsonrpc": "2.0", "id": 61, "method": 42})
    assert client.response(61)["error"]["code"] == INVALID_REQUEST
    assert client.request("opscope/nonsense", {})["error"]["code"] == METHOD_NOT_FOUND
    reply = client.request("textDocument/hover", {"textDocument": {"uri": 5}})
    assert reply["error"]["code"] == INVALID_PARAMS
    assert "invalid params" in reply["error"]["message"]
    # A bad notification gets no reply, only a log line; the session goes on.
    mark = client.mark()
    client.notify("textDocument/didOpen", {"textDocument": {}})
    note = client.wait_notification(lambda n: n["method"] == "window/logMessage"
                                    and "didOpen" in n["params"]["message"], start=mark)
    assert note["params"]["type"] == 2
    still_alive(client)


def test_ten_megabyte_document_and_invalid_utf8(make_client, tmp_path):
    client = make_client()
    client.initialize(tmp_path)
    big = "quantization_config:\n  module_name_configs:\n" + "    # padding\n" * 900_000
    assert len(big) > 10_000_000
    uri = client.open(tmp_path / "big.yaml", big)
    assert client.diagnostics(uri, timeout=60) is not None
    # Invalid UTF-8 inside the JSON text: replaced, not fatal.
    bad = (b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":'
           b'{"uri":"file:///bad.yaml","languageId":"yaml","version":1,"text":"a: \xff\xfe"}}}')
    client.send_raw(frame(bad))
    reply = client.request("textDocument/hover", text_position("file:///bad.yaml", 0, 4))
    assert "result" in reply
    still_alive(client)


def test_cancelled_request_is_answered_with_request_cancelled(make_client, tmp_path):
    client = make_client()
    client.initialize(tmp_path)
    uri = client.open(tmp_path / "c.yaml", "quantization_config:\n")
    request = {"jsonrpc": "2.0", "id": 70, "method": "textDocument/hover",
               "params": text_position(uri, 0, 3)}
    cancel = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 70}}
    client.send_raw(encode(request) + encode(cancel))
    assert client.response(70)["error"]["code"] == REQUEST_CANCELLED
    still_alive(client)


def test_document_changing_while_request_in_flight(make_client, tmp_path):
    client = make_client()
    client.initialize(tmp_path)
    uri = client.open(tmp_path / "c.yaml", "quantization_config:\n")
    request = {"jsonrpc": "2.0", "id": 80, "method": "textDocument/completion",
               "params": text_position(uri, 1, 2)}
    change = {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": pos(1, 0), "end": pos(1, 0)},
                            "text": "  global_config:\n"}]}}
    client.send_raw(encode(request) + encode(change))
    assert client.response(80)["error"]["code"] == CONTENT_MODIFIED
    # The edit itself was applied: diagnostics come for version 2.
    note = client.wait_notification(lambda n: n["method"] == "textDocument/publishDiagnostics"
                                    and n["params"].get("version") == 2)
    assert note["params"]["uri"] == uri
    still_alive(client)


def test_exit_without_shutdown_exits_1(make_client):
    client = make_client()
    client.initialize()
    client.notify("exit")
    assert client.proc.wait(10) == 1


def test_exit_after_shutdown_exits_0_and_requests_after_shutdown_are_refused(make_client):
    client = make_client()
    client.initialize()
    assert client.result("shutdown") is None
    assert client.request("textDocument/hover", {})["error"]["code"] == INVALID_REQUEST
    client.notify("exit")
    assert client.proc.wait(10) == 0


def test_closed_stdin_without_shutdown_exits_1(make_client):
    client = make_client()
    client.initialize()
    client.proc.stdin.close()
    assert client.proc.wait(10) == 1


def test_bad_command_line(opscope_bin):
    import subprocess
    run = subprocess.run([str(opscope_bin), "lsp", "--port", "zero"], capture_output=True,
                         text=True, timeout=10)
    assert run.returncode == 2
    assert "--port" in run.stderr
