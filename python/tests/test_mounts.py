"""Several stores as one memory through the Python package (``mounts=``): the
shared scenario of tests/conformance/mounts.json, which the engine's, the host's
and the Node tests run too, step by step to the byte, through the SDK's face and
the raw face; the read-only store's directory left byte for byte as it was; the
instructions text; refused sets of mounts."""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import pytest

import memdir
from conftest import load


def snapshot(d: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("face", ["call", "raw"])
def test_a_read_only_store_beside_a_writable_one(face: str, tmp_path: Path) -> None:
    data = load("mounts.json")
    team_spec, me_spec = data["mounts"]
    team, me = tmp_path / "team", tmp_path / "me"
    memdir.MemdirMemoryTool(directory=team).import_entries(list(team_spec["files"].items()))
    before = snapshot(team)
    tool = memdir.MemdirMemoryTool(
        mounts=[
            memdir.Mount(team_spec["name"], team, read_only=team_spec["access"] == "read_only"),
            memdir.Mount(me_spec["name"], me, read_only=me_spec["access"] == "read_only"),
        ]
    )
    assert tool.backend == "mounts"
    assert tool.instructions() == data["instructions"]
    for i, (inp, content, is_error) in enumerate(data["steps"]):
        if face == "raw":
            import json

            got = tool.execute_json(json.dumps(inp, ensure_ascii=False))
        else:
            try:
                got = (tool.call(inp), False)
            except memdir.MemdirError as e:
                got = (e.content, True)
        assert got == (content, is_error), f"step {i}: {inp}"
    assert snapshot(team) == before


def test_refused_mounts_are_value_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as e:
        memdir.MemdirMemoryTool(mounts=[memdir.Mount("a"), memdir.Mount("a")])
    assert "a" in str(e.value)
    with pytest.raises(ValueError, match="^give either directory or mounts, not both$"):
        memdir.MemdirMemoryTool(directory=tmp_path, mounts=[memdir.Mount("a")])
    with pytest.raises(TypeError, match=r"^instructions\(\) is for a memory opened with mounts=$"):
        memdir.MemdirMemoryTool().instructions()


def test_mounted_input_errors_keep_the_engines_kinds() -> None:
    tool = memdir.MemdirMemoryTool(mounts=[memdir.Mount("me")])
    with pytest.raises(memdir.MemdirError) as e:
        tool.call({"command": "view"})
    assert (e.value.kind, e.value.content) == ("input", 'Error: Invalid view input: missing field "path"')
    with pytest.raises(memdir.MemdirError) as e:
        tool.call({"command": "create", "path": "/memories/me/a", "file_text": "a\ud800"})
    assert (e.value.kind, e.value.content) == ("input", "Error: Invalid tool input: not valid UTF-8")
    with pytest.raises(memdir.MemdirError) as e:
        tool.call({"command": "create", "path": "/memories/me/a", "file_text": "z" * (17 << 20)})
    assert (e.value.kind, e.value.content) == ("input", "Error: Invalid tool input: the input is over the limit of 16,777,216 bytes")
    assert tool.call({"command": "create", "path": "/memories/me/a.md", "file_text": "x"}) == "File created successfully at: /memories/me/a.md"
