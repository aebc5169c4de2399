// The 1,000-command agent workload every benchmark runs (bench/node in Node,
// bench/browser in a page): one generator and seed, so each runtime runs the same
// commands over the same 200 files.

// A small deterministic PRNG (mulberry32), so every run is the same workload (and
// bench/node takes its turns in the same order).
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'memory agent note task plan step done todo idea user prefers likes context result error retry file path view line'.split(' ');

/**
 * The starting tree and the command list, from a model of the files. Each command is
 * `[kind, input, leaves?]`, `leaves` being the content a create or an edit leaves at
 * its path (what a write must hash once: the benches' write floor).
 */
export function workload({ commands: N_COMMANDS = 1000, files: N_FILES = 200, seed: SEED = 42 } = {}) {
  const rand = rng(SEED);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  let uid = 0;
  const line = () => `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} #${uid++} ${'.'.repeat(Math.floor(rand() * 40))}`;
  const body = (bytes) => {
    const lines = [];
    let n = 0;
    while (n < bytes) {
      const l = line();
      lines.push(l);
      n += l.length + 1;
    }
    return lines.join('\n');
  };
  const files = new Map();
  const dirs = ['projects', 'people', 'notes', 'logs', 'projects/alpha', 'projects/beta'];
  for (let i = 0; i < N_FILES; i++) {
    files.set(`/memories/${pick(dirs)}/f${i}.md`, body(2048 + Math.floor(rand() * 18 * 1024)));
  }
  const initial = new Map(files);
  const commands = [];
  let created = 0;
  const mix = [
    ['view file', 30],
    ['view range', 10],
    ['view dir', 10],
    ['str_replace', 20],
    ['insert', 15],
    ['create', 7],
    ['rename', 4],
    ['delete', 4],
  ];
  const total = mix.reduce((s, [, w]) => s + w, 0);
  while (commands.length < N_COMMANDS) {
    let r = rand() * total;
    const [kind] = mix.find(([, w]) => (r -= w) < 0);
    const paths = [...files.keys()];
    const path = pick(paths);
    const content = files.get(path);
    const lines = content.split('\n');
    switch (kind) {
      case 'view file':
        commands.push([kind, { command: 'view', path }]);
        break;
      case 'view range': {
        const s = 1 + Math.floor(rand() * lines.length);
        commands.push([kind, { command: 'view', path, view_range: [s, Math.min(lines.length, s + 20)] }]);
        break;
      }
      case 'view dir':
        commands.push([kind, { command: 'view', path: pick(['/memories', '/memories/projects', '/memories/notes']) }]);
        break;
      case 'str_replace': {
        // Every line ends its words with a unique #id, so this occurs once.
        const target = pick(lines);
        const old_str = target.slice(target.indexOf('#'), target.indexOf('#') + 8).replace(/ .*/, '');
        const hits = content.split(old_str).length - 1;
        if (hits !== 1 || !/^#\d+$/.test(old_str) || lines.filter((l) => l.includes(old_str)).length !== 1) continue;
        const new_str = `${old_str} (updated ${uid++})`;
        files.set(path, content.replace(old_str, () => new_str));
        commands.push([kind, { command: 'str_replace', path, old_str, new_str }, files.get(path)]);
        break;
      }
      case 'insert': {
        const at = Math.floor(rand() * (lines.length + 1));
        const text = line();
        lines.splice(at, 0, text);
        files.set(path, lines.join('\n'));
        commands.push([kind, { command: 'insert', path, insert_line: at, insert_text: `${text}\n` }, files.get(path)]);
        break;
      }
      case 'create': {
        const p = `/memories/${pick(dirs)}/new${created++}.md`;
        const t = body(2048 + Math.floor(rand() * 4096));
        files.set(p, t);
        commands.push([kind, { command: 'create', path: p, file_text: t }, t]);
        break;
      }
      case 'rename': {
        const p = `/memories/archive/r${created++}.md`;
        files.delete(path);
        files.set(p, content);
        commands.push([kind, { command: 'rename', old_path: path, new_path: p }]);
        break;
      }
      case 'delete':
        if (files.size < N_FILES / 2) continue;
        files.delete(path);
        commands.push([kind, { command: 'delete', path }]);
        break;
    }
  }
  return { initial, commands };
}
