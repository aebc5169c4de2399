"""The Python SDK's own tool runner (``client.beta.messages.tool_runner``, sync
and async) with memdir's tools, against a loopback HTTP server that plays
scripted Messages API turns asking for every command, failing, traversing and
malformed ones included. Asserted: the tool definition each request carries,
and each tool_result the SDK sends back, its content and is_error, exactly."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import anthropic
import pytest

import memdir

NOTES = "/memories/notes.md"
HEAD = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:"

# Each turn: the tool calls the fake model makes, and the content and is_error the
# SDK must send back for each, in order. Calls within a turn may run concurrently
# (the async runner gathers them), so none depends on another of its turn.
TURNS: List[List[Tuple[Any, str, bool]]] = [
    [({"command": "view", "path": "/memories"}, f"{HEAD}\n0B\t/memories", False)],
    [
        ({"command": "create", "path": NOTES, "file_text": "Line 1\nLine 2\n"}, f"File created successfully at: {NOTES}", False),
        ({"command": "create", "path": "/memories/other.txt", "file_text": "x"}, "File created successfully at: /memories/other.txt", False),
        (
            {"command": "view", "path": "/memories/nothing"},
            "Error: The path /memories/nothing does not exist. Please provide a valid path.",
            True,
        ),
    ],
    [
        ({"command": "create", "path": NOTES, "file_text": "again"}, f"Error: File {NOTES} already exists", True),
        (
            {"command": "str_replace", "path": NOTES, "old_str": "Line 9", "new_str": "x"},
            f"Error: No replacement was performed, old_str `Line 9` did not appear verbatim in {NOTES}.",
            True,
        ),
        (
            {"command": "str_replace", "path": NOTES, "old_str": "Line", "new_str": "x"},
            "Error: No replacement was performed. Multiple occurrences of old_str `Line` in lines: 1, 2. Please ensure it is unique",
            True,
        ),
        ({"command": "delete", "path": "/memories/missing"}, "Error: The path /memories/missing does not exist", True),
        # Traversal attempts: refused in the engine's words, nothing touched.
        (
            {"command": "view", "path": "/memories/../etc/passwd"},
            "Error: Path /memories/../etc/passwd would escape /memories directory",
            True,
        ),
        ({"command": "view", "path": "/etc/passwd"}, "Error: Path must start with /memories, got: /etc/passwd", True),
        (
            {"command": "create", "path": "/memories/%2e%2e/x", "file_text": "x"},
            "Error: Path /memories/%2e%2e/x would escape /memories directory",
            True,
        ),
        # Malformed input: the engine's words, not the SDK's nor Python's.
        ({"command": "view"}, 'Error: Invalid view input: missing field "path"', True),
        ({"command": "view", "path": 5}, 'Error: Invalid view input: field "path" must be a string', True),
        (
            {"command": "list", "path": "/memories"},
            'Error: Unknown command "list". Expected one of: view, create, str_replace, insert, delete, rename',
            True,
        ),
        ({"path": "/memories"}, 'Error: Invalid tool input: missing field "command"', True),
    ],
    [
        (
            {"command": "str_replace", "path": NOTES, "old_str": "Line 2", "new_str": "Line two $& $1"},
            "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
            "     1\tLine 1\n     2\tLine two $& $1\n     3\t",
            False,
        )
    ],
    [({"command": "insert", "path": NOTES, "insert_line": 1, "insert_text": "Inserted\n"}, f"The file {NOTES} has been edited.", False)],
    [
        (
            {"command": "view", "path": NOTES, "view_range": [1, 2]},
            f"Here's the content of {NOTES} with line numbers:\n     1\tLine 1\n     2\tInserted",
            False,
        ),
        (
            {"command": "view", "path": NOTES, "view_range": [5, 6]},
            "Error: Invalid `view_range`: [5, 6]. Its first element `5` should be within the range of lines of the file: [1, 4]",
            True,
        ),
        (
            {"command": "insert", "path": NOTES, "insert_line": 9, "insert_text": "x"},
            "Error: Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 4]",
            True,
        ),
        ({"command": "delete", "path": "/memories/other.txt"}, "Successfully deleted /memories/other.txt", False),
    ],
    [({"command": "rename", "old_path": NOTES, "new_path": "/memories/kept/notes.md"}, f"Successfully renamed {NOTES} to /memories/kept/notes.md", False)],
    [({"command": "view", "path": "/memories"}, f"{HEAD}\n31B\t/memories\n31B\t/memories/kept/\n31B\t/memories/kept/notes.md", False)],
]


class FakeApi:
    """A loopback Messages API: request i gets the tool calls of turn i, then a
    final "Done."; every request body is kept."""

    def __init__(self, turns: List[List[Tuple[Any, str, bool]]] = TURNS) -> None:
        self.requests: List[Dict[str, Any]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                i = len(api.requests)
                api.requests.append(body)
                turn = turns[i] if i < len(turns) else None
                content = (
                    [{"type": "tool_use", "id": f"toolu_{i}_{j}", "name": "memory", "input": inp} for j, (inp, _, _) in enumerate(turn)]
                    if turn
                    else [{"type": "text", "text": "Done."}]
                )
                out = json.dumps(
                    {
                        "id": f"msg_{i}",
                        "type": "message",
                        "role": "assistant",
                        "model": body["model"],
                        "content": content,
                        "stop_reason": "tool_use" if turn else "end_turn",
                        "stop_sequence": None,
                        "usage": {"input_tokens": 1, "output_tokens": 1},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def api() -> Iterator[FakeApi]:
    a = FakeApi()
    yield a
    a.close()


PARAMS = dict(
    model="claude-sonnet-5-5",
    max_tokens=1024,
    messages=[{"role": "user", "content": "Use your memory."}],
)


def check(api: FakeApi, final: Any) -> None:
    assert [b.text for b in final.content] == ["Done."]
    assert len(api.requests) == len(TURNS) + 1
    # The definition goes out with the first request; anthropic 2.14's runner
    # keeps a server-side thread, so later requests may leave it out, never change it.
    definition = [{"type": "memory_20250818", "name": "memory"}]
    assert api.requests[0]["tools"] == definition
    for r in api.requests[1:]:
        assert r.get("tools", definition) == definition
    for i, turn in enumerate(TURNS):
        # The request after turn i carries its results, as the last user message.
        sent = api.requests[i + 1]["messages"][-1]
        assert sent["role"] == "user"
        want = []
        for j, (_, content, is_error) in enumerate(turn):
            block: Dict[str, Any] = {"type": "tool_result", "tool_use_id": f"toolu_{i}_{j}", "content": content}
            if is_error:
                block["is_error"] = True
            want.append(block)
        assert sent["content"] == want, f"turn {i}"


@pytest.mark.parametrize("where", ["memory", "directory"])
def test_the_sync_runner(api: FakeApi, where: str, tmp_path: Path) -> None:
    tool = memdir.MemdirMemoryTool() if where == "memory" else memdir.MemdirMemoryTool(directory=tmp_path / "store")
    client = anthropic.Anthropic(api_key="test-key", base_url=api.url, max_retries=0)
    final = client.beta.messages.tool_runner(tools=[tool], **PARAMS).until_done()
    check(api, final)


@pytest.mark.parametrize("where", ["memory", "directory"])
def test_the_async_runner(api: FakeApi, where: str, tmp_path: Path) -> None:
    tool = memdir.AsyncMemdirMemoryTool() if where == "memory" else memdir.AsyncMemdirMemoryTool(directory=tmp_path / "store")

    async def run() -> Any:
        client = anthropic.AsyncAnthropic(api_key="test-key", base_url=api.url, max_retries=0)
        return await client.beta.messages.tool_runner(tools=[tool], **PARAMS).until_done()

    check(api, asyncio.run(run()))


def test_the_tool_definition_keeps_cache_control() -> None:
    tool = memdir.MemdirMemoryTool(cache_control={"type": "ephemeral"})
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory", "cache_control": {"type": "ephemeral"}}
