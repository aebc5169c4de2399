// The exact refusal for a hostile path, from its rule (tests/conformance/hostile-paths.json
// names the rule; the wording is the team brief's), and every argument position
// such a path can take.

const thousands = (n) => n.toLocaleString('en-US');
const utf8 = (s) => Buffer.byteLength(s, 'utf8');
const hex = (ch) => ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
const invisible = /[\p{Cc}\p{Cf}]/gu;
const shown = (p) => p.replace(invisible, (ch) => `<U+${hex(ch)}>`);

/** The path as the rules see it: one trailing `/` dropped under /memories. */
function canonical(raw) {
  const p = raw.endsWith('/') ? raw.slice(0, -1) : raw;
  return p === '/memories' || p.startsWith('/memories/') ? p : raw;
}

export function hostileMessage(raw, rule) {
  const p = canonical(raw);
  switch (rule) {
    case 'length':
      return `Path is too long: ${thousands(utf8(raw))} bytes, over the limit of 1,024 bytes`;
    case 'prefix':
      return `Path must start with /memories, got: ${raw}`;
    case 'escape':
      return `Path ${raw} would escape /memories directory`;
    case 'empty':
      return `Path ${p} has an empty segment (//), which is not allowed`;
    case 'control':
      return `Path ${shown(p)} contains the control character U+${hex(p.match(/\p{Cc}/u)[0])}, which is not allowed`;
    case 'format':
      return `Path ${shown(p)} contains the invisible format character U+${hex(p.match(/\p{Cf}/u)[0])}, which is not allowed`;
    case 'nfc':
      return `Path ${p} is not in Unicode NFC form; use the composed (NFC) form of the name`;
    case 'segment': {
      const name = p.split('/').find((n) => utf8(n) > 255);
      return `Path ${p} has a name of ${thousands(utf8(name))} bytes, over the limit of 255 bytes`;
    }
    default:
      throw new Error(`unknown rule ${rule}`);
  }
}

const OK = '/memories/ok.txt';

/** The seven places a path goes, each input otherwise valid. */
export const POSITIONS = {
  'view.path': (p) => ({ command: 'view', path: p }),
  'create.path': (p) => ({ command: 'create', path: p, file_text: 'x' }),
  'str_replace.path': (p) => ({ command: 'str_replace', path: p, old_str: 'x', new_str: 'y' }),
  'insert.path': (p) => ({ command: 'insert', path: p, insert_line: 0, insert_text: 'x' }),
  'delete.path': (p) => ({ command: 'delete', path: p }),
  'rename.old_path': (p) => ({ command: 'rename', old_path: p, new_path: OK }),
  'rename.new_path': (p) => ({ command: 'rename', old_path: OK, new_path: p }),
};
