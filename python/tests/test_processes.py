"""Python and the Node CLI (``node bin/memdir.js``) writing one directory store
at the same time, from several processes each: every acknowledged write is
there afterwards, no refused one is, and both runtimes read the same store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import List, Set

import memdir
from conftest import ROOT, node

WRITERS = 3  # processes of each runtime
EACH = 12  # writes per process: half new files, half inserts into one shared file
SHARED = "/memories/shared.md"

PY_WRITER = r"""
import json, sys
import memdir
name, store, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
tool = memdir.MemdirMemoryTool(directory=store)
for i in range(n):
    if i % 2:
        inp = {"command": "insert", "path": "/memories/shared.md", "insert_line": 0, "insert_text": f"{name}-{i}\n"}
    else:
        inp = {"command": "create", "path": f"/memories/{name}/{i}.md", "file_text": f"{name} {i}"}
    try:
        print(json.dumps([inp, tool.call(inp), False]), flush=True)
    except memdir.MemdirError as e:
        print(json.dumps([inp, e.content, True]), flush=True)
"""


def inputs(name: str) -> List[dict]:
    out = []
    for i in range(EACH):
        if i % 2:
            out.append({"command": "insert", "path": SHARED, "insert_line": 0, "insert_text": f"{name}-{i}\n"})
        else:
            out.append({"command": "create", "path": f"/memories/{name}/{i}.md", "file_text": f"{name} {i}"})
    return out


def test_python_and_node_processes_share_one_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    first = memdir.MemdirMemoryTool(directory=store)
    assert first.call({"command": "create", "path": SHARED, "file_text": ""}) == f"File created successfully at: {SHARED}"

    procs = []
    for w in range(WRITERS):
        procs.append(
            (
                "py",
                subprocess.Popen(
                    [sys.executable, "-c", PY_WRITER, f"py{w}", str(store), str(EACH)],
                    stdout=subprocess.PIPE,
                    text=True,
                ),
            )
        )
        lines = "".join(json.dumps(i) + "\n" for i in inputs(f"node{w}"))
        p = subprocess.Popen(
            [node(), str(ROOT / "bin" / "memdir.js"), "--store", str(store), "exec"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert p.stdin is not None
        p.stdin.write(lines)
        p.stdin.close()
        procs.append((f"node{w}", p))

    acked_files: Set[str] = set()
    acked_lines: Set[str] = set()
    refused_lines: Set[str] = set()
    answered = 0
    for kind, p in procs:
        assert p.stdout is not None
        out = p.stdout.read()
        assert p.wait(timeout=300) in (0, 1)  # 1: some result is_error
        rows = [json.loads(l) for l in out.splitlines() if l]
        if kind == "py":
            results = [(inp, content, is_error) for inp, content, is_error in rows]
        else:
            results = [(inp, r["content"], r.get("is_error", False)) for inp, r in zip(inputs(kind), rows)]
        assert len(results) == EACH, (kind, out[-500:])
        for inp, content, is_error in results:
            answered += 1
            if inp["command"] == "create":
                if not is_error:
                    assert content == f"File created successfully at: {inp['path']}"
                    acked_files.add(inp["path"])
            elif is_error:
                refused_lines.add(inp["insert_text"])
            else:
                assert content == f"The file {SHARED} has been edited."
                acked_lines.add(inp["insert_text"])

    assert answered == 2 * WRITERS * EACH
    # Every create went to a path of its own: all must have succeeded.
    assert len(acked_files) == WRITERS * 2 * (EACH // 2)
    # Inserts race on one file; a lost race is retried by the engine, and one
    # that ran out of retries is refused and must have left nothing.
    assert len(acked_lines) >= 1
    print(f"acknowledged: {len(acked_files)} creates, {len(acked_lines)} inserts; refused inserts: {len(refused_lines)}")

    # What Python reads now: every acknowledged write, no refused one.
    after = memdir.MemdirMemoryTool(directory=store)
    tree = dict(after.entries())
    files = {p for p, c in tree.items() if c is not None and p != SHARED}
    assert files == acked_files
    for path in files:
        name, i = path.split("/")[2], path.split("/")[3].removesuffix(".md")
        assert tree[path] == f"{name} {i}"
    shared_lines = {l + "\n" for l in (tree[SHARED] or "").splitlines()}
    assert shared_lines == acked_lines
    assert not (shared_lines & refused_lines)

    # Node reads the same store, to the byte.
    view = {"command": "view", "path": SHARED}
    r = subprocess.run(
        [node(), str(ROOT / "bin" / "memdir.js"), "--store", str(store), "exec", json.dumps(view)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert json.loads(r.stdout)["content"] == after.call(view)
    listing = {"command": "view", "path": "/memories"}
    r = subprocess.run(
        [node(), str(ROOT / "bin" / "memdir.js"), "--store", str(store), "exec", json.dumps(listing)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert json.loads(r.stdout)["content"] == after.call(listing)
