"""Faults and hostile input through the Python package: the sandbox's fuel and
memory caps, a failing and a tampered directory store, huge inputs, text that
cannot be UTF-8, and callers passing the wrong types. Each gets a clear error
in the engine's (or the sandbox's) words, changes nothing, never names a host
path, and the next call works."""

from __future__ import annotations

import glob
import os
import threading
from pathlib import Path

import pytest

import memdir
from conftest import open_tool

VIEW_A = {"command": "view", "path": "/memories/a.txt"}
VIEWED_A = "Here's the content of /memories/a.txt with line numbers:\n     1\tone\n     2\ttwo"


def seeded(backend: str, tmp_path: Path, **options: object) -> memdir.MemdirMemoryTool:
    tool = open_tool(backend, tmp_path, **options)
    tool.import_entries([("/memories/a.txt", "one\ntwo")])
    return tool


def raised(tool: memdir.MemdirMemoryTool, input: object) -> memdir.MemdirError:
    with pytest.raises(memdir.MemdirError) as e:
        tool.call(input)
    return e.value


def test_running_out_of_fuel_is_a_fault_and_the_next_call_works(backend: str, tmp_path: Path) -> None:
    tool = seeded(backend, tmp_path)
    before = tool.entries()
    tool.set_limits(fuel=20_000)
    big = {"command": "create", "path": "/memories/new.txt", "file_text": "x" * 50_000}
    e = raised(tool, big)
    assert type(e) is memdir.MemdirFault
    assert e.kind == "fuel"
    assert e.content == "Error: The memory tool ran out of its compute budget and was stopped; nothing was changed."
    tool.set_limits()
    assert tool.entries() == before
    assert tool.call(VIEW_A) == VIEWED_A
    assert tool.call(big) == "File created successfully at: /memories/new.txt"


def test_the_memory_cap_is_a_fault_and_the_next_call_works(backend: str, tmp_path: Path) -> None:
    tool = seeded(backend, tmp_path, memory_bytes=8 << 20)
    assert tool.call(VIEW_A) == VIEWED_A, "8 MiB is enough for a view"
    before = tool.entries()
    e = raised(tool, {"command": "create", "path": "/memories/big.txt", "file_text": "y" * (6 << 20)})
    assert (type(e), e.kind) == (memdir.MemdirFault, "memory")
    assert e.content == "Error: The memory tool ran out of memory and was stopped; nothing was changed."
    assert tool.call(VIEW_A) == VIEWED_A, "a fresh instance serves the next call"
    assert tool.entries() == before


def test_the_runner_sends_a_fault_as_an_error_result(tmp_path: Path) -> None:
    # What the SDK's runner does with any exception a tool raises: a ToolError's
    # content, with is_error.
    from anthropic.lib.tools import ToolError

    tool = memdir.MemdirMemoryTool(fuel=20_000)
    with pytest.raises(ToolError) as e:
        tool.call({"command": "create", "path": "/memories/x.txt", "file_text": "x" * 50_000})
    assert e.value.content == "Error: The memory tool ran out of its compute budget and was stopped; nothing was changed."


def test_a_huge_input_is_refused_before_the_engine(backend: str, tmp_path: Path) -> None:
    tool = seeded(backend, tmp_path)
    before = tool.entries()
    e = raised(tool, {"command": "create", "path": "/memories/huge.txt", "file_text": "z" * (100 << 20)})
    assert (type(e), e.kind) == (memdir.MemdirError, "input")
    assert e.content == "Error: Invalid tool input: the input is over the limit of 16,777,216 bytes"
    assert tool.execute_json("{" * (100 << 20)) == (
        "Error: Invalid tool input: the input is over the limit of 16,777,216 bytes",
        True,
    )
    assert tool.entries() == before
    assert tool.call(VIEW_A) == VIEWED_A


def test_text_that_cannot_be_utf8_is_refused_in_the_engines_words(backend: str, tmp_path: Path) -> None:
    tool = seeded(backend, tmp_path)
    before = tool.entries()
    # A lone surrogate: JSON escapes may carry one, Python decodes it, UTF-8 has none.
    e = raised(tool, {"command": "create", "path": "/memories/s.txt", "file_text": "a\ud800b"})
    assert (e.kind, e.content) == ("input", "Error: Invalid tool input: not valid UTF-8")
    assert tool.execute_json(b'{"command":"view","path":"/memories/\xff"}') == (
        "Error: Invalid tool input: not valid UTF-8",
        True,
    )
    with pytest.raises(memdir.MemdirError) as raw:
        tool._memory.run_json(b"\xc3\x28")
    assert raw.value.content == "Error: Invalid tool input: not valid UTF-8"
    assert tool.entries() == before
    assert tool.call(VIEW_A) == VIEWED_A


class Opaque:
    pass


@pytest.mark.parametrize(
    "value,message",
    [
        ({1, 2}, "Invalid tool input: not valid JSON"),
        (Opaque(), "Invalid tool input: not valid JSON"),
        ({"command": "view", "path": float("nan")}, "Invalid tool input: not valid JSON"),
        (None, 'Invalid tool input: expected a JSON object with a "command" field'),
        ("view /memories", 'Invalid tool input: expected a JSON object with a "command" field'),
        ([{"command": "view", "path": "/memories"}], 'Invalid tool input: expected a JSON object with a "command" field'),
        ({"command": b"view"}, "Invalid tool input: not valid JSON"),
        ({"command": "view", "path": ("/memories",)}, 'Invalid view input: field "path" must be a string'),
        ({"command": "insert", "path": "/memories/a.txt", "insert_line": True, "insert_text": "x"}, 'Invalid insert input: field "insert_line" must be a number'),
    ],
)
def test_wrong_types_from_the_caller(value: object, message: str) -> None:
    tool = memdir.MemdirMemoryTool()
    e = raised(tool, value)
    assert (e.kind, e.message) == ("input", message)


def test_wrong_types_to_the_extension_are_python_errors(tmp_path: Path) -> None:
    tool = memdir.MemdirMemoryTool()
    with pytest.raises(ValueError, match=r"^the tool input must be str \(JSON text\) or bytes$"):
        tool.execute_json(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^secrets must be one of: allow, refuse, redact$"):
        memdir.MemdirMemoryTool(secrets="maybe")
    with pytest.raises(OverflowError):
        memdir.MemdirMemoryTool(max_file_bytes=-1)
    with pytest.raises(TypeError):
        memdir.MemdirMemoryTool(no_such_option=1)
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    with pytest.raises(OSError) as e:
        memdir.MemdirMemoryTool(directory=not_a_dir)
    assert str(e.value) == f"{not_a_dir}: the store path is not a directory"


def test_a_failing_store_is_a_clear_error_and_the_next_call_works(tmp_path: Path) -> None:
    store = tmp_path / "store"
    tool = memdir.MemdirMemoryTool(directory=store)
    tool.call({"command": "create", "path": "/memories/a.txt", "file_text": "one\ntwo"})
    away = tmp_path / "away"
    os.rename(store, away)  # the disk goes away under the open store
    e = raised(tool, {"command": "create", "path": "/memories/b.txt", "file_text": "x"})
    assert (type(e), e.kind) == (memdir.MemdirError, "storage_unavailable")
    assert e.content == "Error: The memory directory's storage is unavailable right now; nothing was changed."
    os.rename(away, store)
    assert tool.call(VIEW_A) == VIEWED_A
    assert tool.call({"command": "create", "path": "/memories/b.txt", "file_text": "x"}) == "File created successfully at: /memories/b.txt"


def test_bytes_that_are_not_utf8_in_the_store_are_damage_not_a_crash(tmp_path: Path) -> None:
    store = tmp_path / "store"
    memdir.MemdirMemoryTool(directory=store).call({"command": "create", "path": "/memories/a.txt", "file_text": "hello"})
    [blob] = glob.glob(str(store / "kblob_*"))
    raw = Path(blob).read_bytes()
    Path(blob).write_bytes(raw.replace(b"hello", b"\xff\xfe\xfd\xfc\xfb"))
    tool = memdir.MemdirMemoryTool(directory=store)
    e = raised(tool, {"command": "view", "path": "/memories/a.txt"})
    assert (e.kind, e.content) == ("damaged", "Error: The memory directory's storage is damaged: a stored record is missing or unreadable.")
    assert str(tmp_path) not in e.content
    # The rest of the store still serves.
    assert tool.call({"command": "create", "path": "/memories/b.txt", "file_text": "x"}) == "File created successfully at: /memories/b.txt"


def test_one_tool_shared_by_threads_loses_no_write(backend: str, tmp_path: Path) -> None:
    tool = open_tool(backend, tmp_path)
    tool.call({"command": "create", "path": "/memories/log.md", "file_text": ""})
    answers: list = []

    def work(t: int) -> None:
        for i in range(10):
            answers.append(tool.call({"command": "insert", "path": "/memories/log.md", "insert_line": 0, "insert_text": f"{t}-{i}\n"}))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert answers == ["The file /memories/log.md has been edited."] * 80
    content = dict(tool.entries())["/memories/log.md"] or ""
    assert sorted(content.splitlines()) == sorted(f"{t}-{i}" for t in range(8) for i in range(10))
