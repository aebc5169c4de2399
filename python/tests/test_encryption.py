"""Encryption at rest through the Python package (``encryption_key=``, ``key_id=``,
``rekey``, ``encrypt``): after a workload of every kind of write no stored byte of a
store directory shows a content, a path or a content's SHA-256; a wrong, missing
or unwanted key raises ``MemdirError`` in the engine's words when the memory is
opened, with the store unchanged; and the conformance data answers the same on an
encrypted store."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import memdir
from conftest import expected_tree, load, open_tool, state_entries

KEY = bytes(range(32))
OTHER = bytes(range(100, 132))

CASES: List[Dict[str, Any]] = load("cases.json")["cases"]


def every_byte(root: Path) -> bytes:
    """Every file's name and bytes under a store directory, read raw."""
    out = bytearray()
    for p in sorted(root.rglob("*")):
        out += p.name.encode() + b"\0"
        if p.is_file():
            out += p.read_bytes() + b"\0"
    return bytes(out)


def workload(tool: memdir.MemdirMemoryTool) -> List[str]:
    """Creates, an edit, an insert, a rename, API writes and a redaction, the
    toolset's write and a saved search index; what must never show at rest."""
    texts = [
        "okapi saffron ledger 3391\nthe okapi keeps a second line\n",
        "okapi saffron ledger 4402\nthe okapi keeps a second line\n",
        "okapi saffron ledger 4402\nnarwhal inserted line\nthe okapi keeps a second line\n",
        "api capybara briefing: cobalt",
        "toolset axolotl marzipan entry",
    ]
    tool.call({"command": "create", "path": "/memories/tapir-dir/okapi.md", "file_text": texts[0]})
    tool.call({"command": "str_replace", "path": "/memories/tapir-dir/okapi.md", "old_str": "3391", "new_str": "4402"})
    tool.call({"command": "insert", "path": "/memories/tapir-dir/okapi.md", "insert_line": 1, "insert_text": "narwhal inserted line"})
    tool.call({"command": "rename", "old_path": "/memories/tapir-dir/okapi.md", "new_path": "/memories/tapir-dir/moved-gecko.md"})
    created = tool.api({"op": "memory.create", "body": json.dumps({"path": "/capybara/brief.md", "content": "api capybara briefing: indigo"})})
    assert created["status"] == 200, created
    body = created["body"]
    tool.api({"op": "memory.update", "id": body["id"], "body": json.dumps({"content": texts[3]})})
    redacted = tool.api({"op": "version.redact", "id": body["memory_version_id"], "body": "{}"})
    assert redacted["status"] == 200, redacted
    store_tools = {t.name: t for t in memdir.memory_store_tools(tool)}
    store_tools["memory_write"].call({"path": "/axolotl.md", "content": texts[4]})
    assert tool.search("okapi saffron")[0]["path"] == "/memories/tapir-dir/moved-gecko.md"
    assert tool.reindex()["pending"] is False
    hashes = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    words = ["okapi", "saffron", "narwhal", "gecko", "tapir", "capybara", "indigo", "cobalt", "axolotl", "marzipan"]
    return texts + hashes + words


def test_no_stored_byte_shows_a_content_a_path_or_a_hash(tmp_path: Path) -> None:
    plain = memdir.MemdirMemoryTool(directory=tmp_path / "plain")
    needles = workload(plain)
    seen = every_byte(tmp_path / "plain")
    # The scan finds them in plaintext (the redacted "indigo" aside).
    assert [n for n in needles if n.encode() not in seen] == ["indigo"]

    tool = memdir.MemdirMemoryTool(directory=tmp_path / "sealed", encryption_key=KEY, key_id="py-1")
    needles = workload(tool)
    seen = every_byte(tmp_path / "sealed")
    assert [n for n in needles if n.encode() in seen] == []
    assert tool.encryption_status() == {"encrypted": True, "keyId": "py-1", "rotatingFrom": None}
    again = memdir.MemdirMemoryTool(directory=tmp_path / "sealed", encryption_key=KEY, key_id="py-1")
    assert again.call({"command": "view", "path": "/memories/tapir-dir/moved-gecko.md", "view_range": [2, 2]}) == (
        "Here's the content of /memories/tapir-dir/moved-gecko.md with line numbers:\n     2\tnarwhal inserted line"
    )


def refusal(**options: Any) -> memdir.MemdirError:
    with pytest.raises(memdir.MemdirError) as e:
        memdir.MemdirMemoryTool(**options)
    return e.value


def test_a_wrong_missing_or_unwanted_key_raises_and_the_store_is_unchanged(tmp_path: Path) -> None:
    store = tmp_path / "store"
    workload(memdir.MemdirMemoryTool(directory=store, encryption_key=KEY, key_id="py-1"))
    before = every_byte(store)

    e = refusal(directory=store, encryption_key=OTHER, key_id="py-2")
    assert (e.kind, e.message) == ("refused", "this store is encrypted with key id py-1, not py-2")
    e = refusal(directory=store, encryption_key=OTHER, key_id="py-1")
    assert (e.kind, e.message) == ("refused", "the key given as key id py-1 does not open this store")
    e = refusal(directory=store)
    assert (e.kind, e.message) == ("refused", "this store is encrypted with key id py-1: open it with that key")
    assert e.content == "Error: this store is encrypted with key id py-1: open it with that key"
    assert every_byte(store) == before

    plain = tmp_path / "plain"
    memdir.MemdirMemoryTool(directory=plain).call({"command": "create", "path": "/memories/a.md", "file_text": "a"})
    before = every_byte(plain)
    e = refusal(directory=plain, encryption_key=KEY)
    assert (e.kind, e.message) == ("refused", "this store is not encrypted: encrypt it first (memdir encrypt)")
    assert every_byte(plain) == before


def test_a_bad_key_or_key_id_is_refused_in_the_engines_words(tmp_path: Path) -> None:
    e = refusal(encryption_key=KEY[:31])
    assert (e.kind, e.message) == ("input", "an encryption key is 32 bytes (64 hex characters)")
    assert KEY[:31].hex() not in str(e)
    e = refusal(encryption_key=KEY, key_id="not an id")
    assert (e.kind, e.message) == ("input", "a key id is 1 to 64 letters, digits, '.', '_' or '-'")
    with pytest.raises(ValueError, match="^key_id needs encryption_key$"):
        memdir.MemdirMemoryTool(key_id="py-1")


def test_rekey_and_encrypt(tmp_path: Path) -> None:
    store = tmp_path / "store"
    tool = memdir.MemdirMemoryTool(directory=store)
    needles = workload(tool)
    tree = tool.entries()
    tool.encrypt(KEY, "py-1")
    assert tool.entries() == tree
    assert [n for n in needles if n.encode() in every_byte(store)] == []
    assert memdir.MemdirMemoryTool(directory=store, encryption_key=KEY, key_id="py-1").entries() == tree

    moved = tool.rekey(OTHER, "py-2")
    assert moved > 10
    assert tool.encryption_status() == {"encrypted": True, "keyId": "py-2", "rotatingFrom": None}
    assert memdir.MemdirMemoryTool(directory=store, encryption_key=OTHER, key_id="py-2").entries() == tree
    e = refusal(directory=store, encryption_key=KEY, key_id="py-1")
    assert e.message == "this store is encrypted with key id py-2, not py-1"


def test_the_async_tool_rekeys_too(tmp_path: Path) -> None:
    async def go() -> tuple:
        tool = memdir.AsyncMemdirMemoryTool(directory=tmp_path / "s", encryption_key=KEY)
        await tool.call({"command": "create", "path": "/memories/a.md", "file_text": "a"})
        moved = await tool.rekey(OTHER, "py-async")
        status = await tool.encryption_status()
        view = await tool.call({"command": "view", "path": "/memories/a.md"})
        return (moved > 0, status["keyId"], view)

    assert asyncio.run(go()) == (
        True,
        "py-async",
        "Here's the content of /memories/a.md with line numbers:\n     1\ta",
    )


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conformance_case_on_an_encrypted_store(case: Dict[str, Any], backend: str, tmp_path: Path) -> None:
    before = state_entries(case["before"])
    after = expected_tree(state_entries(case["after"])) if "after" in case else expected_tree(before)
    tool = open_tool(backend, tmp_path, encryption_key=KEY, **case.get("limits", {}))
    tool.import_entries(before)
    try:
        if "input_text" in case:
            got = (tool._memory.run_json(case["input_text"]), False)
        else:
            got = (tool.call(case["input"]), False)
    except memdir.MemdirError as e:
        got = (e.content, True)
    assert got == (case["content"], case["is_error"])
    assert dict(tool.entries()) == after
