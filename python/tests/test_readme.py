"""README.md's Python blocks, as a user runs them: the install block is what the
Python suite ran to make the environment these tests run in (checked here when
the suite runs them), and the use block runs as written, in a project of its
own, against a loopback fake Messages API; what it stored is then read by
Python and by the Node CLI."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict

import memdir
from conftest import ROOT, node
from test_sdk_runner import FakeApi


def blocks() -> Dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return {m[1]: m[2] for m in re.finditer(r"<!-- checked: ([a-z-]+) -->\n```[a-z]+\n([\s\S]*?)\n```", text)}


def test_the_package_under_test_is_the_installed_wheel() -> None:
    here = Path(memdir.__file__).resolve()
    assert "site-packages" in here.parts, here
    assert (here.parent / "py.typed").is_file()
    assert (here.parent / "_memdir.pyi").is_file()
    assert Path(memdir._memdir.__file__).name.endswith(".abi3.so")
    if os.environ.get("MEMDIR_PYTHON_SUITE"):
        # The suite made this environment with README's install lines.
        assert Path(sys.prefix).resolve() == (ROOT / ".venv").resolve()
        lines = [l.split("#")[0].strip() for l in blocks()["python-install"].splitlines()]
        assert lines == ["bash python/build.sh", "python3 -m venv .venv", ".venv/bin/pip install python/dist/memdir-*.whl"]


def test_the_use_block_runs_as_written(tmp_path: Path) -> None:
    code = blocks()["python-use"]
    api = FakeApi([[({"command": "create", "path": "/memories/preferences.md", "file_text": "Tabs over spaces.\n"}, "", False)]])
    try:
        env = {**os.environ, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": api.url}
        r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert (r.returncode, r.stdout) == (0, "Done.\n"), r.stderr[-2000:]
        results = api.requests[1]["messages"][-1]["content"]
        assert results == [{"type": "tool_result", "tool_use_id": "toolu_0_0", "content": "File created successfully at: /memories/preferences.md"}]
    finally:
        api.close()
    view = "Here's the content of /memories/preferences.md with line numbers:\n     1\tTabs over spaces.\n     2\t"
    assert memdir.MemdirMemoryTool(directory=tmp_path / ".memdir").call({"command": "view", "path": "/memories/preferences.md"}) == view
    # The CLI's default store is ./.memdir: the same memory.
    cli = subprocess.run([node(), str(ROOT / "bin" / "memdir.js"), "view", "preferences.md"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert cli.stdout == view + "\n"
