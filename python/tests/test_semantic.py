"""Search by meaning through the Python package: ``embedder=`` (an object with
``id``, ``dims`` and ``embed(texts, kind)``, such as ``memdir.Embedder``) lent to
the engine's sandbox, ``mode`` and ``min_score`` on ``search`` and ``recall``,
sync, async and across mounts; a memory without an embedder keeps lexical search;
an embedder that raises is said so in the engine's words, never its own, and
lexical search still answers."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import List, Tuple

import pytest

import memdir
from conftest import open_tool

# A tiny embedder for the test: one axis per topic, found in any of its words,
# whatever the language, and a constant axis so that no vector is zero.
TOPICS = [("dark", "夜间", "night"), ("meeting", "morning", "会议"), ("flight", "lisbon", "航班")]


class Topics:
    id = "test-topics-v1"
    dims = 4

    def __init__(self) -> None:
        self.calls: List[Tuple[int, str]] = []

    def embed(self, texts: List[str], kind: str) -> List[List[float]]:
        self.calls.append((len(texts), kind))
        return [[float(any(w in t.lower() for w in words)) for words in TOPICS] + [0.1] for t in texts]


CORPUS = [
    ("/memories/prefs/editor.md", "The user prefers dark mode in every editor.\n"),
    ("/memories/prefs/schedule.md", "The user hates meetings before ten.\n"),
    ("/memories/notes/trip.md", "Flight to Lisbon on Friday, window seat.\n"),
]

NO_EMBEDDER = (
    "Semantic and hybrid search need an embedder: open the memory with one "
    "(openMemory({ embedder }), memdir --embedder), or search with mode 'lexical'."
)
FAILED = (
    "The embedder failed (it threw or its promise rejected); no vector was kept, "
    "and search with mode 'lexical' still answers."
)


def write_corpus(tool: memdir.MemdirMemoryTool) -> None:
    for path, text in CORPUS:
        assert tool.call({"command": "create", "path": path, "file_text": text}) == f"File created successfully at: {path}"


def paths(hits: List[dict]) -> List[str]:
    return [h["path"] for h in hits]


def test_an_embedder_finds_by_meaning_and_writes_never_call_it(backend: str, tmp_path: Path) -> None:
    topics = Topics()
    tool = open_tool(backend, tmp_path, embedder=topics)
    write_corpus(tool)
    assert topics.calls == []
    fingerprint = "test-topics-v1:4:l2:text-start:2000"
    # The npm package's searchStatus() shape: three texts wait for a vector.
    assert tool.search_status() == {"indexed": 0, "pending": True, "fingerprint": fingerprint, "vectors": {"indexed": 0, "pending": 3}}
    assert tool.search("夜间模式", mode="lexical") == []
    assert paths(tool.search("夜间模式", mode="semantic", limit=1)) == ["/memories/prefs/editor.md"]
    # The documents were embedded in one batch, then the query.
    assert topics.calls == [(3, "document"), (1, "query")]
    # Hybrid is the default with an embedder: a keyword-only hit is kept beside.
    assert paths(tool.search("航班 window", limit=1)) == ["/memories/notes/trip.md"]
    hits = tool.search("夜间模式", mode="semantic")
    # The cosines of the vectors as kept, int8 (0.1 of 1 is 13 of 127): 1 for the
    # same topic, 13² / (127² + 13²) for another.
    other = round(13**2 / (127**2 + 13**2), 4)
    assert [round(h["score"], 4) for h in hits] == [1.0, other, other]
    assert paths(tool.search("夜间模式", mode="semantic", min_score=0.5)) == ["/memories/prefs/editor.md"]
    block = tool.recall("morning availability", mode="semantic", limit=1)
    assert "The user hates meetings before ten." in block
    assert "dark mode" not in block
    assert tool.search_status() == {"indexed": 3, "pending": False, "fingerprint": fingerprint, "vectors": {"indexed": 3, "pending": 0}}


def test_without_an_embedder_search_stays_lexical(backend: str, tmp_path: Path) -> None:
    tool = open_tool(backend, tmp_path)
    write_corpus(tool)
    assert paths(tool.search("Lisbon")) == ["/memories/notes/trip.md"]
    with pytest.raises(memdir.MemdirError) as e:
        tool.search("夜间模式", mode="semantic")
    assert (e.value.kind, e.value.message) == ("input", NO_EMBEDDER)


def test_an_embedder_that_raises_is_said_so_without_its_text() -> None:
    def embed(texts: List[str], kind: str) -> List[List[float]]:
        raise RuntimeError("quota exceeded for key sk-test-1234")

    tool = memdir.MemdirMemoryTool(embedder=memdir.Embedder(id="down", dims=4, embed=embed))
    write_corpus(tool)
    with pytest.raises(memdir.MemdirError) as e:
        tool.search("dark", mode="semantic")
    assert (e.value.kind, e.value.message) == ("input", FAILED)
    assert "sk-test" not in str(e.value)
    assert paths(tool.search("Lisbon", mode="lexical")) == ["/memories/notes/trip.md"]
    # An answer that is not a list of lists of numbers fails the same way.
    bad = memdir.MemdirMemoryTool(embedder=memdir.Embedder(id="bad", dims=4, embed=lambda texts, kind: "nope"))
    write_corpus(bad)
    with pytest.raises(memdir.MemdirError) as e:
        bad.search("dark", mode="semantic")
    assert e.value.message == FAILED


def test_an_embedder_of_another_shape_is_refused_at_open() -> None:
    message = "embedder must have id (a non-empty str), dims (an int from 1 to 4096) and embed(texts, kind), or be callable as embed"
    for embedder in [object(), memdir.Embedder(id="", dims=4, embed=Topics().embed), memdir.Embedder(id="x", dims=0, embed=Topics().embed)]:
        with pytest.raises(ValueError) as e:
            memdir.MemdirMemoryTool(embedder=embedder)
        assert str(e.value) == message


def test_async_and_mounted_memories_take_the_embedder(tmp_path: Path) -> None:
    tool = memdir.AsyncMemdirMemoryTool(embedder=Topics())

    async def run() -> List[str]:
        for path, text in CORPUS:
            await tool.call({"command": "create", "path": path, "file_text": text})
        return paths(await tool.search("夜间模式", mode="semantic", limit=1))

    assert asyncio.run(run()) == ["/memories/prefs/editor.md"]
    mounted = memdir.MemdirMemoryTool(
        mounts=[memdir.Mount("team", tmp_path / "team"), memdir.Mount("mine")], embedder=Topics()
    )
    assert mounted.call({"command": "create", "path": "/memories/team/night.md", "file_text": "Night shift rota.\n"}).startswith("File created")
    assert mounted.call({"command": "create", "path": "/memories/mine/trip.md", "file_text": "Flight home.\n"}).startswith("File created")
    assert paths(mounted.search("夜间", mode="semantic", limit=1)) == ["/memories/team/night.md"]
