"""Shared by memdir's Python tests: the repository's conformance data, and a
memory on each backend. The package under test is the installed wheel, never
the source folder (CI installs it into a fresh virtual environment)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

import memdir

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "tests" / "conformance"

BACKENDS = ["memory", "directory"]


def load(name: str) -> Any:
    return json.loads((CONFORMANCE / name).read_text(encoding="utf-8"))


def state_entries(state: Dict[str, Any]) -> List[Tuple[str, Optional[str]]]:
    """A conformance state's files (a string, or {"repeat", "times"}) and its
    childless directories, as entries to import (tests/conformance/README.md)."""
    out: List[Tuple[str, Optional[str]]] = []
    for path, v in state.get("files", {}).items():
        out.append((path, v if isinstance(v, str) else v["repeat"] * v["times"]))
    for d in state.get("dirs", []):
        out.append((d, None))
    return out


def expected_tree(entries: List[Tuple[str, Optional[str]]]) -> Dict[str, Optional[str]]:
    """Every entry and every directory above it, /memories excluded."""
    tree: Dict[str, Optional[str]] = {}
    for path, content in entries:
        parts = path.split("/")
        for i in range(3, len(parts)):
            tree["/".join(parts[:i])] = None
        tree[path] = content
    return tree


def open_tool(backend: str, tmp: Path, **options: Any) -> memdir.MemdirMemoryTool:
    if backend == "memory":
        return memdir.MemdirMemoryTool(**options)
    return memdir.MemdirMemoryTool(directory=tmp / "store", **options)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def node() -> str:
    return os.environ.get("NODE", "node")
