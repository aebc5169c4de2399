"""tests/conformance/ in full through the Python package, on both backends: every
case of cases.json through the SDK's face (``call`` with the decoded input, or the
raw JSON text where the text itself matters) and the raw face, the answer to the
byte and the whole tree afterwards; every hostile path in every argument
position, refused in the engine's words with the store unchanged."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Dict, List

import pytest

import memdir
from conftest import expected_tree, load, open_tool, state_entries

CASES: List[Dict[str, Any]] = load("cases.json")["cases"]
HOSTILE: List[Dict[str, str]] = load("hostile-paths.json")["paths"]


def answer(tool: memdir.MemdirMemoryTool, case: Dict[str, Any]) -> tuple:
    """The case's input through the face a Python caller uses: ``call`` with the
    value the SDK decoded, or, for a raw text, the extension's ``run_json``.
    A failure is the raised MemdirError's content (what the runner sends)."""
    try:
        if "input_text" in case:
            return (tool._memory.run_json(case["input_text"]), False)
        return (tool.call(case["input"]), False)
    except memdir.MemdirError as e:
        assert e.content == f"Error: {e.message}"
        assert e.kind in KINDS, e.kind
        return (e.content, True)


KINDS = {
    "input",
    "path",
    "refused",
    "limit",
    "secret",
    "storage_full",
    "storage_unavailable",
    "storage_failed",
    "damaged",
    "busy",
}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: Dict[str, Any], backend: str, tmp_path: Path) -> None:
    before = state_entries(case["before"])
    after = expected_tree(state_entries(case["after"])) if "after" in case else expected_tree(before)
    want = (case["content"], case["is_error"])

    tool = open_tool(backend, tmp_path, **case.get("limits", {}))
    tool.import_entries(before)
    assert answer(tool, case) == want
    assert dict(tool.entries()) == after

    # The raw face, on a fresh store: the same answer from the same text.
    raw = open_tool(backend, tmp_path / "raw", **case.get("limits", {}))
    raw.import_entries(before)
    import json

    text = case["input_text"] if "input_text" in case else json.dumps(case["input"], ensure_ascii=False)
    assert raw.execute_json(text) == want
    assert dict(raw.entries()) == after


def test_the_data_is_all_there() -> None:
    # A runner that loaded nothing would pass every case it ran.
    assert len(CASES) >= 400
    assert len(HOSTILE) >= 2000
    assert len({c["name"] for c in CASES}) == len(CASES)


POSITIONS = [
    "view.path",
    "create.path",
    "str_replace.path",
    "insert.path",
    "delete.path",
    "rename.old_path",
    "rename.new_path",
]


def hostile_input(position: str, path: str) -> Dict[str, Any]:
    """The tool input that puts ``path`` in ``position`` (as memdir::conformance)."""
    return {
        "view.path": {"command": "view", "path": path},
        "create.path": {"command": "create", "path": path, "file_text": "x"},
        "str_replace.path": {"command": "str_replace", "path": path, "old_str": "a", "new_str": "b"},
        "insert.path": {"command": "insert", "path": path, "insert_line": 0, "insert_text": "x"},
        "delete.path": {"command": "delete", "path": path},
        "rename.old_path": {"command": "rename", "old_path": path, "new_path": "/memories/b.txt"},
        "rename.new_path": {"command": "rename", "old_path": "/memories/a.txt", "new_path": path},
    }[position]


def test_every_hostile_path_in_every_position(backend: str, tmp_path: Path) -> None:
    tool = open_tool(backend, tmp_path)
    tool.import_entries([("/memories/a.txt", "a")])
    before = tool.entries()
    failures = []
    refused = 0
    for hostile, position in itertools.product(HOSTILE, POSITIONS):
        want = f"Error: {hostile['message']}"
        try:
            got = tool.call(hostile_input(position, hostile["path"]))
        except memdir.MemdirError as e:
            got = e.content
            if got == want and e.kind == "path":
                refused += 1
                continue
        failures.append((position, hostile["path"][:60], got[:200]))
    assert failures == []
    assert refused == len(HOSTILE) * len(POSITIONS)
    assert tool.entries() == before
