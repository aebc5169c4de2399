"""The exceptions memdir raises, made by the extension with (kind, message).

Both derive from the SDK's ``ToolError``, so the tool runner sends the engine's
answer to the model as an ``is_error`` tool result, in the engine's exact words.
"""

from __future__ import annotations

from anthropic.lib.tools import ToolError

__all__ = ["MemdirError", "MemdirFault"]


class MemdirError(ToolError):
    """The engine refused or failed a command.

    ``kind`` is the engine's kind of failure, as every memdir face spells it:
    ``input``, ``path``, ``refused``, ``limit``, ``secret``, ``storage_full``,
    ``storage_unavailable``, ``storage_failed``, ``damaged`` or ``busy``.
    ``message`` is the engine's text; ``content`` (what the model sees) is
    ``"Error: " + message``, the same string every runtime answers.
    """

    kind: str
    message: str

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"Error: {message}")
        self.kind = kind
        self.message = message

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return (type(self), (self.kind, self.message))


class MemdirFault(MemdirError):
    """The sandbox stopped the call: ``kind`` is ``fuel`` (its compute budget ran
    out), ``memory`` (its memory cap), ``trap`` (an internal fault) or ``start``
    (the engine could not be started). The instance is discarded; the next call
    gets a fresh one. The message says whether the change was saved.
    """
