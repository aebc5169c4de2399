"""Search through the Python package: ``search`` and ``recall`` answering the
shapes every memdir face answers (``[{"path", "score", "lines": [{"line",
"text"}]}]``, best first; the recall block), on both backends and across mounts,
sync and async; the index's status; a deleted hit never found again; and the
memory-store toolset (``memory_store_tools``) as tools the SDK's runner takes,
with the engine's definitions and texts."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
from anthropic.lib.tools import BetaAsyncFunctionTool, BetaFunctionTool

import memdir
from conftest import open_tool


def shape(hits: List[Dict[str, Any]]) -> List[Tuple[str, List[str]]]:
    """Each hit's path and its lines as ``n: text``; the score is checked apart."""
    return [(h["path"], [f"{line['line']}: {line['text']}" for line in h["lines"]]) for h in hits]


def write(tool: memdir.MemdirMemoryTool, path: str, text: str) -> None:
    assert tool.call({"command": "create", "path": path, "file_text": text}) == f"File created successfully at: {path}"


def test_search_ranks_what_was_written_and_never_finds_a_deleted_hit(backend: str, tmp_path: Path) -> None:
    tool = open_tool(backend, tmp_path)
    write(tool, "/memories/preferences/formatting.md", "Use tabs, not spaces.\nWrap at 100 columns.\n")
    write(tool, "/memories/notes/tabs.md", "tabs tabs tabs\nother\n")
    write(tool, "/memories/notes/草稿.md", "我喜欢北京的秋天\n")
    hits = tool.search("tabs")
    assert shape(hits) == [
        ("/memories/notes/tabs.md", ["1: tabs tabs tabs"]),
        ("/memories/preferences/formatting.md", ["1: Use tabs, not spaces."]),
    ]
    assert [sorted(h) for h in hits] == [["lines", "path", "score"]] * 2
    assert hits[0]["score"] > hits[1]["score"] > 0
    assert isinstance(hits[0]["score"], float)
    assert shape(tool.search("formatting", limit=1)) == [("/memories/preferences/formatting.md", [])]
    assert shape(tool.search("北京")) == [("/memories/notes/草稿.md", ["1: 我喜欢北京的秋天"])]
    assert shape(tool.search("tabs", path_prefix="/memories/preferences")) == [
        ("/memories/preferences/formatting.md", ["1: Use tabs, not spaces."])
    ]
    assert tool.search_status() == {"indexed": 3, "pending": False}

    assert tool.call({"command": "delete", "path": "/memories/notes/tabs.md"}) == "Successfully deleted /memories/notes/tabs.md"
    assert tool.search_status() == {"indexed": 3, "pending": True}
    assert shape(tool.search("tabs")) == [("/memories/preferences/formatting.md", ["1: Use tabs, not spaces."])]
    assert tool.reindex() == {"indexed": 2, "pending": False}
    if backend == "directory":
        # Another memory on the same directory (another process's view): the
        # index is in the store, and the deleted text is not in it.
        again = memdir.MemdirMemoryTool(directory=tmp_path / "store")
        assert again.search_status() == {"indexed": 2, "pending": False}
        assert shape(again.search("tabs")) == [("/memories/preferences/formatting.md", ["1: Use tabs, not spaces."])]


def test_recall_is_the_block_for_a_system_prompt(backend: str, tmp_path: Path) -> None:
    tool = open_tool(backend, tmp_path)
    write(tool, "/memories/prefs.md", "Answer in German.\nKeep it short.\n")
    write(tool, "/memories/other.md", "German grammar notes\n")
    assert tool.recall("German answer", limit=1) == (
        '<memories>\n<memory path="/memories/prefs.md">\nAnswer in German.\nKeep it short.\n</memory>\n</memories>'
    )
    # Within the budget (164 characters): the second memory's whole text does not
    # fit, its best line does.
    assert tool.recall("German", max_chars=164) == (
        '<memories>\n<memory path="/memories/other.md">\nGerman grammar notes\n</memory>\n'
        '<memory path="/memories/prefs.md" lines="1">\n1: Answer in German.\n</memory>\n</memories>'
    )
    assert tool.recall("zebra") == ""


@pytest.mark.parametrize(
    "args, message",
    [
        ({"query": "  "}, "The search query is empty: give the words to look for."),
        ({"query": "x", "limit": 0}, "limit must be a whole number from 1 to 100, not 0."),
        ({"query": "x", "limit": 101}, "limit must be a whole number from 1 to 100, not 101."),
        ({"query": "..."}, "The search query holds no words to look for (only punctuation or symbols)."),
        ({"query": 7}, "query must be a string."),
        (
            {"query": "x", "path_prefix": "/etc"},
            "path_prefix must be a directory path under /memories, such as /memories/notes.",
        ),
        ({"query": "x" * 257}, "The search query is 257 characters long; the most is 256."),
    ],
)
def test_a_refused_search_raises_the_engines_words(args: Dict[str, Any], message: str) -> None:
    tool = memdir.MemdirMemoryTool()
    with pytest.raises(memdir.MemdirError) as e:
        tool.search(**args)
    assert (e.value.kind, e.value.message, e.value.content) == ("input", message, f"Error: {message}")
    with pytest.raises(memdir.MemdirError) as e:
        tool.recall(**args)
    assert e.value.message == message
    assert tool.search("x") == []


def test_search_across_mounts_and_a_read_only_store_left_as_it_was(tmp_path: Path) -> None:
    team, me = tmp_path / "team", tmp_path / "me"
    memdir.MemdirMemoryTool(directory=team).import_entries([("/memories/deploy.md", "deploy on fridays never\n")])
    memdir.MemdirMemoryTool(directory=me).import_entries([("/memories/deploy-notes.md", "deploy deploy\nmine\n")])
    before = {str(p.relative_to(team)): p.read_bytes() for p in sorted(team.rglob("*")) if p.is_file()}
    tool = memdir.MemdirMemoryTool(mounts=[memdir.Mount("team", team, read_only=True), memdir.Mount("me", me)])
    assert shape(tool.search("deploy")) == [
        ("/memories/me/deploy-notes.md", ["1: deploy deploy"]),
        ("/memories/team/deploy.md", ["1: deploy on fridays never"]),
    ]
    assert shape(tool.search("deploy", path_prefix="/memories/team")) == [
        ("/memories/team/deploy.md", ["1: deploy on fridays never"])
    ]
    assert tool.search("deploy", path_prefix="/memories/elsewhere") == []
    assert tool.recall("fridays") == (
        '<memories>\n<memory path="/memories/team/deploy.md">\ndeploy on fridays never\n</memory>\n</memories>'
    )
    # The read-only store's index lives in its instance, not in its directory.
    assert tool.search_status() == {"indexed": 2, "pending": False}
    after = {str(p.relative_to(team)): p.read_bytes() for p in sorted(team.rglob("*")) if p.is_file()}
    assert after == before


def test_the_async_tool_searches_alike(tmp_path: Path) -> None:
    async def go() -> Tuple[Any, ...]:
        tool = memdir.AsyncMemdirMemoryTool(directory=tmp_path / "store")
        await tool.call({"command": "create", "path": "/memories/a.md", "file_text": "alpha beta\n"})
        return (
            shape(await tool.search("beta")),
            await tool.recall("beta"),
            await tool.search_status(),
            await tool.reindex(),
        )

    assert asyncio.run(go()) == (
        [("/memories/a.md", ["1: alpha beta"])],
        '<memories>\n<memory path="/memories/a.md">\nalpha beta\n</memory>\n</memories>',
        {"indexed": 1, "pending": False},
        {"indexed": 1, "pending": False},
    )


TOOL_NAMES = ["memory_list", "memory_search", "memory_read", "memory_write", "memory_edit", "memory_delete"]


def test_the_store_tools_are_the_engines_definitions_for_the_runner() -> None:
    tools = memdir.memory_store_tools(memdir.MemdirMemoryTool())
    assert [t.name for t in tools] == TOOL_NAMES
    assert all(isinstance(t, BetaFunctionTool) for t in tools)
    assert [t.read_only for t in tools] == [True, True, True, False, False, False]
    read = tools[2].to_dict()
    assert read == {
        "name": "memory_read",
        "description": "Read a document of the memory store: its whole content and the content_sha256 that memory_edit can check.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "The document, e.g. /notes/a.md."}},
            "required": ["path"],
            "additionalProperties": False,
        },
    }
    async_tools = memdir.memory_store_tools(memdir.AsyncMemdirMemoryTool())
    assert all(isinstance(t, BetaAsyncFunctionTool) for t in async_tools)
    assert [t.to_dict() for t in async_tools] == [t.to_dict() for t in tools]


def test_the_store_tools_run_on_the_engine_with_its_texts(backend: str, tmp_path: Path) -> None:
    tool = open_tool(backend, tmp_path)
    tools = {t.name: t for t in memdir.memory_store_tools(tool)}
    written = tools["memory_write"].call({"path": "/notes/a.md", "content": "alpha\nbeta"})
    sha = hashlib.sha256(b"alpha\nbeta").hexdigest()
    assert written == f"Created /notes/a.md (10 bytes, content_sha256 {sha})."
    # The document is the memory tool's file too.
    assert tool.call({"command": "view", "path": "/memories/notes/a.md"}) == (
        "Here's the content of /memories/notes/a.md with line numbers:\n     1\talpha\n     2\tbeta"
    )
    with pytest.raises(memdir.MemdirError) as e:
        tools["memory_read"].call({"path": "/notes/none.md"})
    assert (e.value.kind, e.value.content) == (
        "not_found",
        "Error: No document at /notes/none.md; memory_list shows the documents there are.",
    )
    with pytest.raises(memdir.MemdirError) as e:
        tools["memory_read"].call(["not", "an", "object"])
    assert (e.value.kind, e.value.message) == (
        "input",
        "Invalid input for memory_read: the input must be a JSON object, got an array.",
    )
    with pytest.raises(memdir.MemdirError) as e:
        tools["memory_edit"].call({"path": "/notes/a.md", "old_str": "", "new_str": "x"})
    assert e.value.message == "Invalid input for memory_edit: old_str must not be empty."


def test_the_store_tools_over_mounts_refuse_a_read_only_store(tmp_path: Path) -> None:
    team, me = tmp_path / "team", tmp_path / "me"
    memdir.MemdirMemoryTool(directory=team).import_entries([("/memories/rules.md", "be kind")])
    tool = memdir.MemdirMemoryTool(mounts=[memdir.Mount("team", team, read_only=True), memdir.Mount("me", me)])
    tools = {t.name: t for t in memdir.memory_store_tools(tool)}
    sha = hashlib.sha256(b"be kind").hexdigest()
    assert tools["memory_read"].call({"path": "/team/rules.md"}) == f"/team/rules.md (7 bytes, content_sha256 {sha}):\nbe kind"
    with pytest.raises(memdir.MemdirError) as e:
        tools["memory_write"].call({"path": "/team/x.md", "content": "no"})
    assert (e.value.kind, e.value.message) == (
        "read_only",
        "Cannot write /team/x.md: the memory store at /team is read-only; nothing was written.",
    )
    assert tools["memory_write"].call({"path": "/me/x.md", "content": "yes"}).startswith("Created /me/x.md (3 bytes")
    assert tool.call({"command": "view", "path": "/memories/me/x.md"}) == (
        "Here's the content of /memories/me/x.md with line numbers:\n     1\tyes"
    )
    with pytest.raises(memdir.MemdirError) as e:
        tools["memory_read"].call({"path": "/nowhere/x.md"})
    assert (e.value.kind, e.value.message) == (
        "no_mount",
        "No memory store holds /nowhere/x.md: the stores are /team, /me.",
    )


def test_the_async_store_tools_run_on_a_worker_thread(tmp_path: Path) -> None:
    async def go() -> str:
        tools = {t.name: t for t in memdir.memory_store_tools(memdir.AsyncMemdirMemoryTool())}
        await tools["memory_write"].call({"path": "/a.md", "content": "hello"})
        return str(await tools["memory_list"].call({}))

    assert asyncio.run(go()) == "Documents under /:\n/a.md (5 bytes)"


# The SDK's own tool runner with the memory tool and the store tools, against a
# loopback Messages API that calls them by name: the definitions it sends, and each
# tool_result with its is_error. Turn by turn, as the async runner may run the
# calls of one turn at once.
def runner_turns() -> List[List[Tuple[str, Any, str, bool]]]:
    sha = hashlib.sha256(b"tabs, not spaces").hexdigest()
    return [
        [("memory_write", {"path": "/notes/a.md", "content": "tabs, not spaces"}, f"Created /notes/a.md (16 bytes, content_sha256 {sha}).", False)],
        [
            (
                "memory_read",
                {"path": "/notes/missing.md"},
                "Error: No document at /notes/missing.md; memory_list shows the documents there are.",
                True,
            ),
            ("memory_edit", {"path": "/notes/a.md", "old_str": "", "new_str": "x"}, "Error: Invalid input for memory_edit: old_str must not be empty.", True),
            (
                "memory",
                {"command": "view", "path": "/memories/notes/a.md"},
                "Here's the content of /memories/notes/a.md with line numbers:\n     1\ttabs, not spaces",
                False,
            ),
        ],
        [("memory_list", {}, "Documents under /:\n/notes/a.md (16 bytes)", False)],
    ]


class NamedFakeApi:
    """Request i gets the named tool calls of turn i, then a final "Done."."""

    def __init__(self, turns: List[List[Tuple[str, Any, str, bool]]]) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.requests: List[Dict[str, Any]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                i = len(api.requests)
                api.requests.append(body)
                turn = turns[i] if i < len(turns) else None
                content = (
                    [{"type": "tool_use", "id": f"toolu_{i}_{j}", "name": n, "input": inp} for j, (n, inp, _, _) in enumerate(turn)]
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


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_the_sdk_runner_runs_the_store_tools_beside_the_memory_tool(flavour: str, tmp_path: Path) -> None:
    import anthropic

    turns = runner_turns()
    api = NamedFakeApi(turns)
    params: Dict[str, Any] = dict(model="claude-sonnet-5-5", max_tokens=1024, messages=[{"role": "user", "content": "Remember."}])
    try:
        if flavour == "sync":
            tool = memdir.MemdirMemoryTool(directory=tmp_path / "store")
            client = anthropic.Anthropic(api_key="test-key", base_url=api.url, max_retries=0)
            tools: List[Any] = [tool, *memdir.memory_store_tools(tool)]
            final = client.beta.messages.tool_runner(tools=tools, **params).until_done()
        else:
            atool = memdir.AsyncMemdirMemoryTool(directory=tmp_path / "store")

            async def run() -> Any:
                aclient = anthropic.AsyncAnthropic(api_key="test-key", base_url=api.url, max_retries=0)
                atools: List[Any] = [atool, *memdir.memory_store_tools(atool)]
                return await aclient.beta.messages.tool_runner(tools=atools, **params).until_done()

            final = asyncio.run(run())
    finally:
        api.close()
    assert [b.text for b in final.content] == ["Done."]
    assert len(api.requests) == len(turns) + 1
    definitions = [{"type": "memory_20250818", "name": "memory"}] + [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in memdir.memory_store_tools(memdir.MemdirMemoryTool())
    ]
    assert [d["name"] for d in definitions] == ["memory", *TOOL_NAMES]
    assert api.requests[0]["tools"] == definitions
    for i, turn in enumerate(turns):
        sent = api.requests[i + 1]["messages"][-1]
        want = []
        for j, (_, _, content, is_error) in enumerate(turn):
            block: Dict[str, Any] = {"type": "tool_result", "tool_use_id": f"toolu_{i}_{j}", "content": content}
            if is_error:
                block["is_error"] = True
            want.append(block)
        assert sent["content"] == want, f"turn {i}"


FIND_TABS = (
    '2 memories match "tabs", best first:\n'
    "/memories/notes/tabs.md (score 0.496)\n     1\ttabs tabs tabs\n"
    "/memories/preferences/formatting.md (score 0.172)\n     1\tUse tabs, not spaces."
)


def test_memory_find_answers_the_text_every_face_answers(backend: str, tmp_path: Path) -> None:
    tool = open_tool(backend, tmp_path)
    write(tool, "/memories/preferences/formatting.md", "Use tabs, not spaces.\nWrap at 100 columns.\n")
    write(tool, "/memories/notes/tabs.md", "tabs tabs tabs\nother\n")
    find = memdir.memory_find_tool(tool)
    assert isinstance(find, BetaFunctionTool)
    assert find.name == "memory_find"
    assert find.to_dict()["input_schema"]["required"] == ["query"]
    # The engine words it (memdir::mounts::find_answer), as for the npm package's memoryFindTool.
    assert find.call({"query": "tabs"}) == FIND_TABS
    assert find.call({"query": "zebra"}) == 'No memory matches "zebra".'
    with pytest.raises(memdir.MemdirError) as refused:
        find.call({"query": "tabs", "limit": 0})
    assert (refused.value.kind, refused.value.message) == ("input", "limit must be a whole number from 1 to 100, not 0.")


def test_memory_find_runs_async_too(tmp_path: Path) -> None:
    tool = memdir.AsyncMemdirMemoryTool(directory=tmp_path / "store")

    async def go() -> str:
        await tool.call({"command": "create", "path": "/memories/preferences/formatting.md", "file_text": "Use tabs, not spaces.\nWrap at 100 columns.\n"})
        await tool.call({"command": "create", "path": "/memories/notes/tabs.md", "file_text": "tabs tabs tabs\nother\n"})
        find = memdir.memory_find_tool(tool)
        assert isinstance(find, BetaAsyncFunctionTool)
        return str(await find.call({"query": "tabs"}))

    assert asyncio.run(go()) == FIND_TABS
