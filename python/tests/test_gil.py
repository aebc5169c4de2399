"""The engine's calls run without the GIL: while one thread waits inside a call,
another runs Python.

The wait is made, not timed: the test holds the store directory's turn (its lock
file, which a writing command waits for, at most the engine's TURN_WAIT_MS) and
lets it go only from Python code on the main thread. The waiting command says
that it waits by writing the turn's want file, so the main thread knows the call
is under way inside the engine; it then notes whether the call has returned and
frees the turn. If a call held the GIL, the main thread could run no Python
until the call had given up waiting and returned: it would note so, and the call
would have run without the turn, leaving its want file behind."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable, Dict, List

import pytest

import memdir

TURN_LOCK = ".lock-turn"
TURN_WANT = ".lock-turn-want"


def create(tool: memdir.MemdirMemoryTool) -> str:
    return tool.call({"command": "create", "path": "/memories/b.md", "file_text": "b"})


def store_write(tool: memdir.MemdirMemoryTool) -> str:
    tools = {t.name: t for t in memdir.memory_store_tools(tool)}
    return str(tools["memory_write"].call({"path": "/b.md", "content": "b"}))


CALLS: Dict[str, Callable[[memdir.MemdirMemoryTool], str]] = {"memory tool": create, "store tool": store_write}


@pytest.mark.parametrize("call", list(CALLS))
def test_python_runs_while_a_call_waits_in_the_engine(call: str, tmp_path: Path) -> None:
    store = tmp_path / "store"
    tool = memdir.MemdirMemoryTool(directory=store)
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": "a"})
    assert not (store / TURN_WANT).exists()
    # Another writer's turn, as a lock whose holder cannot be told dead (its token
    # names no process): the next write waits for it.
    (store / TURN_LOCK).write_text("held by the test")

    answers: List[str] = []
    worker = threading.Thread(target=lambda: answers.append(CALLS[call](tool)))
    worker.start()
    # Polls with sleeps (each lets the worker run), bounded well below the turn's
    # wait: the want file appears once the call is waiting in the engine.
    for _ in range(500):
        if (store / TURN_WANT).exists() or not worker.is_alive():
            break
        time.sleep(0.01)
    returned_while_python_ran = not worker.is_alive()
    (store / TURN_LOCK).unlink()
    worker.join()

    assert returned_while_python_ran is False
    # The call had the turn, freed by Python while it waited (taking it removes
    # its want file), rather than giving up on it after TURN_WAIT_MS and running
    # without it (which leaves the want file behind).
    assert not (store / TURN_WANT).exists()
    assert len(answers) == 1
    assert answers[0].startswith(("File created successfully at: /memories/b.md", "Created /b.md (1 byte"))
    assert tool.call({"command": "view", "path": "/memories/b.md"}) == (
        "Here's the content of /memories/b.md with line numbers:\n     1\tb"
    )
