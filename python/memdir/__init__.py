"""memdir for Python: Claude's memory tool (``memory_20250818``) as a sandboxed
engine, in-process, for the Python SDK's tool runner.

``MemdirMemoryTool()`` keeps the memory in this process;
``MemdirMemoryTool(directory=PATH)`` opens a store directory, the same
``memdir-store`` format the ``memdir`` CLI (Node) and ``memdir-host`` read and
write, safely from several processes at once. Either is used unchanged as
``client.beta.messages.tool_runner(tools=[memory])``; ``AsyncMemdirMemoryTool``
is the async twin.

The model's input goes to the engine as the JSON text of what the SDK decoded, so
each answer is the engine's exact string, the same as every other memdir runtime.
A failure raises ``MemdirError`` (a ``ToolError``: the runner sends it as an
``is_error`` result, ``"Error: "`` and the engine's words), or ``MemdirFault``
when the sandbox stopped the call (fuel, memory cap, trap); the next call gets a
fresh instance.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import anyio.to_thread
from anthropic.lib.tools import (
    BetaAbstractMemoryTool,
    BetaAsyncAbstractMemoryTool,
    BetaAsyncFunctionTool,
    BetaFunctionTool,
)

from . import _memdir
from ._errors import MemdirError, MemdirFault

__all__ = [
    "AsyncMemdirMemoryTool",
    "Embedder",
    "Mount",
    "MemdirError",
    "MemdirFault",
    "MemdirMemoryTool",
    "StoreTool",
    "AsyncStoreTool",
    "FindTool",
    "AsyncFindTool",
    "defaults",
    "memory_find_tool",
    "memory_store_tools",
]

StrPath = Union[str, "os.PathLike[str]"]


def defaults() -> Dict[str, int]:
    """The engine's default limits and the sandbox's (fuel, memory, input size)."""
    return dict(_memdir.defaults())


def _json_text(input: object) -> str:
    """The JSON text of a tool input as the SDK decoded it.

    Input with no JSON form (a set, a circular dict) becomes text that is not JSON,
    so the engine refuses it in its own words rather than this module in others.
    """
    try:
        return json.dumps(input, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return ""


def _command_input(command: Any) -> object:
    """A command model the SDK built (``execute`` dispatching to ``view`` etc.)
    back to the input it was made from."""
    dump = getattr(command, "model_dump", None)
    return dump(exclude_unset=True) if dump is not None else command


@dataclass(frozen=True)
class Embedder:
    """An application's embedder for search by meaning: ``embed(texts, kind)``
    answers one list of ``dims`` floats per text, in order, each embedded as
    ``kind`` (``"query"`` or ``"document"``: models such as e5 prefix them
    differently); it gets at most 32 texts a call, is called on the engine's
    thread with the GIL taken, and need not normalise. ``id`` names the model
    and how it is used: a new id is a new fingerprint, whose vectors are made
    afresh. Whatever ``embed`` raises, or answers that is not a list of lists of
    numbers, is the embedder failing (``MemdirError``, kind ``input``, in the
    engine's words, never the exception's), and lexical search still answers.
    Any object with these three attributes will do."""

    id: str
    dims: int
    embed: Callable[[List[str], str], List[List[float]]]


@dataclass(frozen=True)
class Mount:
    """One store of a mounted memory: at ``/memories/NAME`` (or alone at
    ``/memories`` with ``name=""``), a store directory or (``directory=None``) a
    store in this process, read-only if asked; ``description`` and
    ``instructions`` go into ``instructions()``, for the system prompt."""

    name: str
    directory: Optional[StrPath] = None
    read_only: bool = False
    description: str = ""
    instructions: str = ""


def _open(directory: Optional[StrPath], mounts: Optional[List[Mount]], options: Dict[str, Any]) -> Any:
    if mounts is not None:
        if directory is not None:
            raise ValueError("give either directory or mounts, not both")
        specs = [
            (m.name, None if m.directory is None else os.fspath(m.directory), m.read_only, m.description, m.instructions)
            for m in mounts
        ]
        return _memdir.MountedMemory(specs, **options)
    return _memdir.Memory(None if directory is None else os.fspath(directory), **options)


class _Faces:
    """What the sync and async tools share: the memory and its direct faces."""

    _memory: Any  # _memdir.Memory, or _memdir.MountedMemory (mounts=)

    def instructions(self) -> str:
        """For a mounted memory: the text for the system prompt, saying where each
        store is mounted, whether it is read-only, and its description and
        instructions."""
        if not isinstance(self._memory, _memdir.MountedMemory):
            raise TypeError("instructions() is for a memory opened with mounts=")
        return self._memory.instructions()

    @property
    def backend(self) -> str:
        """``"memory"``, ``"directory"``, or ``"mounts"``."""
        if isinstance(self._memory, _memdir.MountedMemory):
            return "mounts"
        return str(self._memory.backend)

    def execute_json(self, input: Union[str, bytes]) -> Tuple[str, bool]:
        """The raw face: a tool input's JSON text in, ``(content, is_error)`` out."""
        return self._memory.execute_json(input)

    def api_json(self, request: Union[str, bytes]) -> str:
        """The Memory Stores API (docs/memory-stores.md) over this memory: one
        request's JSON text (``{"op", "id", "query", "body", "actor"}``) in, the
        JSON text of ``{"status", "body"}`` out. Never raises for the request."""
        return self._memory.api(request)

    def entries(self) -> List[Tuple[str, Optional[str]]]:
        """Every directory and file under ``/memories``: ``(path, content)``,
        ``content`` None for a directory."""
        return self._memory.entries()

    def import_entries(self, entries: List[Tuple[str, Optional[str]]]) -> None:
        """Replaces the whole tree with ``entries``, all or nothing."""
        self._memory.import_entries(entries)

    def set_limits(
        self,
        *,
        fuel: Optional[int] = None,
        memory_bytes: Optional[int] = None,
        max_input_bytes: Optional[int] = None,
    ) -> None:
        """The sandbox's limits from the next call on; None is the default."""
        self._memory.set_limits(fuel=fuel, memory_bytes=memory_bytes, max_input_bytes=max_input_bytes)

    def search_json(self, request: str) -> str:
        """``search`` for the options' JSON text, answered as JSON text."""
        return str(self._memory.search_json(request))

    def recall_json(self, request: str) -> str:
        """``recall`` for the options' JSON text."""
        return str(self._memory.recall_json(request))

    def toolset_json(self, name: str, input: str) -> str:
        """Memory-store tool ``name`` on its input's JSON text: the text for the
        model, or ``MemdirError`` with the toolset's kind (``not_found``,
        ``input``, ``read_only``, ...) and text."""
        return str(self._memory.toolset(name, input))


def _search_request(query: object, limit: Optional[int], path_prefix: Optional[str], **more: object) -> str:
    """The options as the engine reads them (``memory.search``'s, everywhere):
    what is left out takes the engine's default, and what is given is judged by
    the engine, in its words."""
    request: Dict[str, object] = {"query": query}
    if limit is not None:
        request["limit"] = limit
    if path_prefix is not None:
        request["path_prefix"] = path_prefix
    for k, v in more.items():
        if v is not None:
            request[k] = v
    return _json_text(request)


def _status(answer: Tuple[int, bool, Optional[Tuple[str, int, int]]]) -> Dict[str, Any]:
    """The npm package's ``searchStatus()`` shape: the lexical index's ``indexed``
    and ``pending``, and with an embedder its ``fingerprint`` and ``vectors``
    (distinct live texts with and without a vector)."""
    indexed, pending, vectors = answer
    status: Dict[str, Any] = {"indexed": indexed, "pending": pending}
    if vectors is not None:
        status["fingerprint"] = vectors[0]
        status["vectors"] = {"indexed": vectors[1], "pending": vectors[2]}
    return status


class MemdirMemoryTool(_Faces, BetaAbstractMemoryTool):
    """The memory tool for ``client.beta.messages.tool_runner``, run by memdir's
    engine in a wasmtime sandbox in this process. Thread-safe: calls on one tool
    run one at a time, without holding the GIL.

    ``directory``: a store directory (created when missing or empty); None keeps
    the memory in this process. ``mounts``: several stores as one memory (a list
    of ``Mount``), instead of ``directory``. Other keywords: ``max_file_bytes``,
    ``max_total_bytes``, ``read_limit_chars``, ``max_memories``, ``actor``,
    ``secrets`` (``allow``, ``refuse`` or ``redact``), ``max_retries``, the
    sandbox's ``fuel``, ``memory_bytes`` and ``max_input_bytes``, and
    ``encryption_key`` (32 bytes: the store is encrypted at rest with it; an
    empty store becomes encrypted) with its ``key_id`` (default: derived from
    the key). A key the store refuses (wrong, missing, or given to a plaintext
    store) raises ``MemdirError`` (kind ``refused``) when the tool is made, in the
    engine's words, and nothing is written.
    ``embedder``: the application's embedder, for search by meaning (an object
    with ``id``, ``dims`` and ``embed(texts, kind)``, such as ``Embedder``; see
    ``Embedder``). Without one, search is lexical.
    """

    def __init__(
        self,
        *,
        directory: Optional[StrPath] = None,
        mounts: Optional[List[Mount]] = None,
        cache_control: Any = None,
        **options: Any,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self._memory = _open(directory, mounts, options)

    def call(self, input: object) -> str:
        return self._memory.run_json(_json_text(input))

    def view(self, command: Any) -> str:
        return self.call(_command_input(command))

    def create(self, command: Any) -> str:
        return self.call(_command_input(command))

    def str_replace(self, command: Any) -> str:
        return self.call(_command_input(command))

    def insert(self, command: Any) -> str:
        return self.call(_command_input(command))

    def delete(self, command: Any) -> str:
        return self.call(_command_input(command))

    def rename(self, command: Any) -> str:
        return self.call(_command_input(command))

    def api(self, request: Dict[str, Any]) -> Dict[str, Any]:
        """``api_json`` for a request as a dict: ``{"status": int, "body": ...}``."""
        answer: Dict[str, Any] = json.loads(self._memory.api(_json_text(request)))
        return answer

    def clear_all_memory(self) -> str:
        self._memory.import_entries([])
        return "All memory cleared"

    def search(
        self,
        query: str,
        limit: Optional[int] = None,
        path_prefix: Optional[str] = None,
        mode: Optional[str] = None,
        min_score: Optional[float] = None,
    ) -> List[Dict[str, Any]]:
        """The memories that best match ``query``, best first (the engine's
        ranked index): ``[{"path", "score", "lines": [{"line", "text"}]}]``, at
        most ``limit`` (default 10), only under ``path_prefix`` (such as
        ``/memories/notes``) if given. ``mode``: ``lexical``, ``semantic`` or
        ``hybrid`` (default hybrid with an ``embedder``, else lexical);
        ``min_score``: semantic and hybrid only, the least cosine kept
        (model-specific; no cutoff by default). Raises ``MemdirError`` (kind
        ``input``) for a query or option the engine refuses."""
        request = _search_request(query, limit, path_prefix, mode=mode, min_score=min_score)
        hits: List[Dict[str, Any]] = json.loads(self._memory.search_json(request))
        return hits

    def recall(
        self,
        query: str,
        limit: Optional[int] = None,
        max_chars: Optional[int] = None,
        path_prefix: Optional[str] = None,
        mode: Optional[str] = None,
        min_score: Optional[float] = None,
    ) -> str:
        """The block of the memories most relevant to ``query`` for a system
        prompt (at most ``limit``, default 5, within ``max_chars``, default
        4,000); ``""`` when none is found or fits. ``mode`` and ``min_score`` as
        ``search``'s."""
        request = _search_request(query, limit, path_prefix, max_chars=max_chars, mode=mode, min_score=min_score)
        return str(self._memory.recall_json(request))

    def reindex(self, rounds: Optional[int] = None) -> Dict[str, Any]:
        """Brings the search index up to date, embedding the texts that wait for a
        vector: ``{"indexed", "pending"}``, with an embedder ``"fingerprint"`` and
        ``"vectors": {"indexed", "pending"}`` too."""
        return _status(self._memory.reindex(rounds))

    def search_status(self) -> Dict[str, Any]:
        """How far the search index is: as ``reindex`` answers."""
        return _status(self._memory.search_status())

    def encryption_status(self) -> Dict[str, Any]:
        """How the store is encrypted: ``{"encrypted", "keyId", "rotatingFrom"}``."""
        status: Dict[str, Any] = json.loads(self._memory.encryption_status())
        return status

    def rekey(self, new_key: bytes, key_id: Optional[str] = None) -> int:
        """Re-encrypts the store under ``new_key`` (32 bytes) in bounded steps,
        each saved: if cut short, calling again with the same key finishes. How
        many stored values moved; later calls use the new key."""
        return int(self._memory.rekey(new_key, key_id))

    def encrypt(self, key: bytes, key_id: Optional[str] = None) -> None:
        """Turns the plaintext store into one encrypted with ``key`` (32 bytes),
        resumably as ``rekey``; later calls use the key."""
        self._memory.encrypt(key, key_id)


class AsyncMemdirMemoryTool(_Faces, BetaAsyncAbstractMemoryTool):
    """``MemdirMemoryTool`` for the async tool runner: each call runs on a worker
    thread (the engine releases the GIL), so the event loop never waits on it."""

    def __init__(
        self,
        *,
        directory: Optional[StrPath] = None,
        mounts: Optional[List[Mount]] = None,
        cache_control: Any = None,
        **options: Any,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self._memory = _open(directory, mounts, options)

    async def call(self, input: object) -> str:
        return await anyio.to_thread.run_sync(self._memory.run_json, _json_text(input))

    async def view(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def create(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def str_replace(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def insert(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def delete(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def rename(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def api(self, request: Dict[str, Any]) -> Dict[str, Any]:
        """``api_json`` for a request as a dict, on a worker thread."""
        text = await anyio.to_thread.run_sync(self._memory.api, _json_text(request))
        answer: Dict[str, Any] = json.loads(text)
        return answer

    async def clear_all_memory(self) -> str:
        await anyio.to_thread.run_sync(self._memory.import_entries, [])
        return "All memory cleared"

    async def search(
        self,
        query: str,
        limit: Optional[int] = None,
        path_prefix: Optional[str] = None,
        mode: Optional[str] = None,
        min_score: Optional[float] = None,
    ) -> List[Dict[str, Any]]:
        """``MemdirMemoryTool.search`` on a worker thread."""
        request = _search_request(query, limit, path_prefix, mode=mode, min_score=min_score)
        text = await anyio.to_thread.run_sync(self._memory.search_json, request)
        hits: List[Dict[str, Any]] = json.loads(text)
        return hits

    async def recall(
        self,
        query: str,
        limit: Optional[int] = None,
        max_chars: Optional[int] = None,
        path_prefix: Optional[str] = None,
        mode: Optional[str] = None,
        min_score: Optional[float] = None,
    ) -> str:
        """``MemdirMemoryTool.recall`` on a worker thread."""
        request = _search_request(query, limit, path_prefix, max_chars=max_chars, mode=mode, min_score=min_score)
        return str(await anyio.to_thread.run_sync(self._memory.recall_json, request))

    async def reindex(self, rounds: Optional[int] = None) -> Dict[str, Any]:
        """``MemdirMemoryTool.reindex`` on a worker thread."""
        return _status(await anyio.to_thread.run_sync(self._memory.reindex, rounds))

    async def search_status(self) -> Dict[str, Any]:
        """``MemdirMemoryTool.search_status`` on a worker thread."""
        return _status(await anyio.to_thread.run_sync(self._memory.search_status))

    async def encryption_status(self) -> Dict[str, Any]:
        """``MemdirMemoryTool.encryption_status`` on a worker thread."""
        status: Dict[str, Any] = json.loads(await anyio.to_thread.run_sync(self._memory.encryption_status))
        return status

    async def rekey(self, new_key: bytes, key_id: Optional[str] = None) -> int:
        """``MemdirMemoryTool.rekey`` on a worker thread."""
        return int(await anyio.to_thread.run_sync(self._memory.rekey, new_key, key_id))

    async def encrypt(self, key: bytes, key_id: Optional[str] = None) -> None:
        """``MemdirMemoryTool.encrypt`` on a worker thread."""
        await anyio.to_thread.run_sync(self._memory.encrypt, key, key_id)


def _never_called(**input: Any) -> str:
    """Stands for the function a ``BetaFunctionTool`` wraps: a store tool's
    ``call`` hands the raw input to the engine instead (so the engine judges it
    against the schema, in its words), and never calls this."""
    raise NotImplementedError("memdir's store tools are run through call()")


async def _never_awaited(**input: Any) -> str:
    """``_never_called`` for the async tools."""
    raise NotImplementedError("memdir's store tools are run through call()")


class StoreTool(BetaFunctionTool[Any]):
    """One tool of the memory-store toolset (``memory_list``, ``memory_search``,
    ``memory_read``, ``memory_write``, ``memory_edit``, ``memory_delete``) for
    ``client.beta.messages.tool_runner``: the engine's name, description and
    JSON Schema (``memdir::toolset::TOOLS``), its raw input run by the engine.
    ``read_only``: the tool never changes a store."""

    read_only: bool

    def __init__(self, memory: Any, name: str, description: str, input_schema: Dict[str, Any], read_only: bool) -> None:
        super().__init__(_never_called, name=name, description=description, input_schema=input_schema)
        self._memory = memory
        self.read_only = read_only

    def call(self, input: object) -> str:
        return str(self._memory.toolset(self.name, _json_text(input)))


class AsyncStoreTool(BetaAsyncFunctionTool[Any]):
    """``StoreTool`` for the async tool runner: each call on a worker thread."""

    read_only: bool

    def __init__(self, memory: Any, name: str, description: str, input_schema: Dict[str, Any], read_only: bool) -> None:
        super().__init__(_never_awaited, name=name, description=description, input_schema=input_schema)
        self._memory = memory
        self.read_only = read_only

    async def call(self, input: object) -> str:
        text = _json_text(input)
        return str(await anyio.to_thread.run_sync(self._memory.toolset, self.name, text))


def memory_store_tools(memory: Union[MemdirMemoryTool, AsyncMemdirMemoryTool]) -> List[Any]:
    """The memory-store toolset over ``memory`` (the npm package's
    ``memoryStoreTools(memory)``), as tools the SDK's tool runner takes:
    ``StoreTool``s for a ``MemdirMemoryTool``, ``AsyncStoreTool``s for an
    ``AsyncMemdirMemoryTool``. Over a memory opened with ``mounts=``, paths are
    ``/<mount>/…`` and a write into a read-only store is refused before any
    store is touched."""
    cls = AsyncStoreTool if isinstance(memory, AsyncMemdirMemoryTool) else StoreTool
    return [
        cls(memory._memory, name, description, json.loads(schema), read_only)
        for name, description, schema, read_only in _memdir.toolset_tools()
    ]


class FindTool(BetaFunctionTool[Any]):
    """The ``memory_find`` tool (the npm package's ``memoryFindTool``) for
    ``client.beta.messages.tool_runner``, beside the memory tool: the memories
    most relevant to some words, best first, each path with its score and its
    best lines numbered as ``view`` numbers them. Its name, description and
    JSON Schema are the engine's (``memdir::mounts::FIND_TOOL``); the model's raw
    input is run by the engine, so the text is every face's."""

    def __init__(self, memory: Any) -> None:
        name, description, schema = _memdir.find_tool()
        super().__init__(_never_called, name=name, description=description, input_schema=json.loads(schema))
        self._memory = memory

    def call(self, input: object) -> str:
        return str(self._memory.find(_json_text(input)))


class AsyncFindTool(BetaAsyncFunctionTool[Any]):
    """``FindTool`` for the async tool runner: each call on a worker thread."""

    def __init__(self, memory: Any) -> None:
        name, description, schema = _memdir.find_tool()
        super().__init__(_never_awaited, name=name, description=description, input_schema=json.loads(schema))
        self._memory = memory

    async def call(self, input: object) -> str:
        text = _json_text(input)
        return str(await anyio.to_thread.run_sync(self._memory.find, text))


def memory_find_tool(memory: Union[MemdirMemoryTool, AsyncMemdirMemoryTool]) -> Any:
    """The ``memory_find`` tool over ``memory`` (across its mounts, if opened with
    ``mounts=``), for the SDK's tool runner beside ``memory`` itself: a
    ``FindTool``, or an ``AsyncFindTool`` for an ``AsyncMemdirMemoryTool``."""
    if isinstance(memory, AsyncMemdirMemoryTool):
        return AsyncFindTool(memory._memory)
    return FindTool(memory._memory)
