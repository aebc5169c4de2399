"""The Memory Stores API through the Python package (``api`` and ``api_json``,
sync and async): one request in, ``{status, body}`` out, the engine's objects and
errors; the memory it writes is the tool's memory; a sandbox fault is a 500 with
the host's words, and the next request works."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import memdir
from conftest import open_tool

HELLO_SHA256 = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"


def create(path: str, content: str) -> dict:
    return {"op": "memory.create", "body": json.dumps({"path": path, "content": content})}


def test_a_memory_created_through_the_api_is_the_tools_memory(backend: str, tmp_path: Path) -> None:
    tool = open_tool(backend, tmp_path)
    r = tool.api(create("/notes/a.md", "hello"))
    assert r["status"] == 200
    body = r["body"]
    assert (body["type"], body["path"], body["content_sha256"], body["content_size_bytes"]) == ("memory", "/notes/a.md", HELLO_SHA256, 5)
    assert body["id"].startswith("mem_")
    assert tool.call({"command": "view", "path": "/memories/notes/a.md"}) == "Here's the content of /memories/notes/a.md with line numbers:\n     1\thello"
    got = tool.api({"op": "memory.retrieve", "id": body["id"]})
    assert (got["status"], got["body"]["content"]) == (200, "hello")


def test_refusals_are_statuses_with_the_engines_error_objects() -> None:
    tool = memdir.MemdirMemoryTool()
    assert tool.api({"op": "nope"}) == {"status": 404, "body": {"type": "error", "error": {"type": "not_found_error", "message": 'No operation "nope".'}}}
    assert json.loads(tool.api_json("{")) == {"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "the request is not valid JSON"}}}
    too_large = {"status": 413, "body": {"type": "error", "error": {"type": "request_too_large", "message": "The request is over the limit of 16777216 bytes."}}}
    assert tool.api({"op": "memory.create", "body": "x" * (17 << 20)}) == too_large
    # A request Python cannot encode as UTF-8 is answered as one that is not JSON.
    assert tool.api({"op": "memory.create", "body": "\ud800"})["status"] == 400


def test_a_fault_is_a_500_in_the_hosts_words_and_the_next_request_works() -> None:
    tool = memdir.MemdirMemoryTool()
    tool.set_limits(fuel=20_000)
    r = tool.api(create("/notes/b.md", "x" * 50_000))
    assert r == {
        "status": 500,
        "body": {"type": "error", "error": {"type": "api_error", "message": "The memory tool ran out of its compute budget and was stopped; nothing was changed."}},
    }
    tool.set_limits()
    assert tool.api({"op": "memory.list"}) == {"status": 200, "body": {"data": [], "next_page": None}}
    assert tool.api(create("/notes/b.md", "x"))["status"] == 200


def test_the_async_tool_serves_the_api() -> None:
    tool = memdir.AsyncMemdirMemoryTool()

    async def run() -> dict:
        await tool.api(create("/notes/c.md", "hello"))
        return await tool.api({"op": "memory.list"})

    r = asyncio.run(run())
    assert r["status"] == 200
    assert [m["path"] for m in r["body"]["data"]] == ["/notes/c.md"]
