// The seven places a path goes in the memory tool's commands, each input otherwise
// valid, so a refusal can only be the path's: one table for every runtime's
// hostile-path test (hostile-paths.json gives the paths and the engine's answers).
// `existing` names a file the store holds; `free`, a name it does not.
export function hostilePositions(existing = '/memories/a.txt', free = '/memories/b.txt') {
  return {
    'view.path': (p) => ({ command: 'view', path: p }),
    'create.path': (p) => ({ command: 'create', path: p, file_text: 'x' }),
    'str_replace.path': (p) => ({ command: 'str_replace', path: p, old_str: 'a', new_str: 'b' }),
    'insert.path': (p) => ({ command: 'insert', path: p, insert_line: 0, insert_text: 'x' }),
    'delete.path': (p) => ({ command: 'delete', path: p }),
    'rename.old_path': (p) => ({ command: 'rename', old_path: p, new_path: free }),
    'rename.new_path': (p) => ({ command: 'rename', old_path: existing, new_path: p }),
  };
}
