# Types of the extension module (python/src/lib.rs).
from os import PathLike
from typing import List, Optional, Tuple, Union

class Memory:
    def __init__(
        self,
        directory: Optional[Union[str, PathLike[str]]] = None,
        *,
        max_file_bytes: Optional[int] = None,
        max_total_bytes: Optional[int] = None,
        read_limit_chars: Optional[int] = None,
        max_memories: Optional[int] = None,
        actor: Optional[str] = None,
        secrets: Optional[str] = None,
        max_retries: Optional[int] = None,
        fuel: Optional[int] = None,
        memory_bytes: Optional[int] = None,
        max_input_bytes: Optional[int] = None,
    ) -> None: ...
    @property
    def backend(self) -> str: ...
    def execute_json(self, input: Union[str, bytes]) -> Tuple[str, bool]: ...
    def run_json(self, input: Union[str, bytes]) -> str: ...
    def api(self, request: Union[str, bytes]) -> str: ...
    def entries(self) -> List[Tuple[str, Optional[str]]]: ...
    def import_entries(self, entries: List[Tuple[str, Optional[str]]]) -> None: ...
    def set_limits(
        self,
        *,
        fuel: Optional[int] = None,
        memory_bytes: Optional[int] = None,
        max_input_bytes: Optional[int] = None,
    ) -> None: ...

class MountedMemory:
    def __init__(
        self,
        mounts: List[Tuple[str, Optional[str], bool, str, str]],
        *,
        max_file_bytes: Optional[int] = None,
        max_total_bytes: Optional[int] = None,
        read_limit_chars: Optional[int] = None,
        max_memories: Optional[int] = None,
        actor: Optional[str] = None,
        secrets: Optional[str] = None,
        max_retries: Optional[int] = None,
        fuel: Optional[int] = None,
        memory_bytes: Optional[int] = None,
        max_input_bytes: Optional[int] = None,
    ) -> None: ...
    def execute_json(self, input: Union[str, bytes]) -> Tuple[str, bool]: ...
    def run_json(self, input: Union[str, bytes]) -> str: ...
    def instructions(self) -> str: ...

def defaults() -> List[Tuple[str, int]]: ...
