// Reading the engine's `view` answers back into structure. The explorer draws the
// tree and the file view from exactly the text the model sees, so these parsers are
// the only place that knows its shape (spec: "view").

const DIR_HEADER = /^Here're the files and directories up to 2 levels deep in (.*), excluding hidden items and node_modules:$/;
const FILE_HEADER = /^Here's the content of (.*) with line numbers:$/;
const NUMBERED = /^ *(\d+)\t(.*)$/s;

/**
 * A directory listing: `{ path, size, entries: [{path, size, dir}], notice }`.
 * The first listed line is the directory itself; directories end with `/`.
 * Returns null when the text is not a directory listing.
 */
export function parseDirView(text) {
  const lines = text.split('\n');
  const head = DIR_HEADER.exec(lines[0] ?? '');
  if (!head) return null;
  const out = { path: head[1], size: '', entries: [], notice: null };
  for (const line of lines.slice(1)) {
    const tab = line.indexOf('\t');
    if (line.startsWith('[Output cut')) {
      out.notice = line;
    } else if (tab > 0) {
      let path = line.slice(tab + 1);
      const size = line.slice(0, tab);
      const dir = path.endsWith('/');
      if (dir) path = path.slice(0, -1);
      if (path === out.path) out.size = size;
      else out.entries.push({ path, size, dir });
    }
  }
  return out;
}

/**
 * A file view: `{ path, lines: [{n, text}], notice }`; null when the text is not one.
 * Path rules forbid control characters, so a line's text never hides a newline.
 */
export function parseFileView(text) {
  const nl = text.indexOf('\n');
  const head = FILE_HEADER.exec(nl < 0 ? text : text.slice(0, nl));
  if (!head) return null;
  const out = { path: head[1], lines: [], notice: null };
  if (nl < 0) return out;
  for (const line of text.slice(nl + 1).split('\n')) {
    const m = NUMBERED.exec(line);
    if (m) out.lines.push({ n: Number(m[1]), text: m[2] });
    else if (line.startsWith('[Output cut')) out.notice = line;
  }
  return out;
}

/** The lines of a str_replace snippet, numbered as the engine numbered them. */
export function parseSnippet(text) {
  const nl = text.indexOf('\n');
  if (nl < 0 || !text.startsWith('The memory file has been edited.')) return null;
  return text
    .slice(nl + 1)
    .split('\n')
    .map((l) => NUMBERED.exec(l))
    .filter(Boolean)
    .map((m) => ({ n: Number(m[1]), text: m[2] }));
}

export function parent(path) {
  return path.slice(0, path.lastIndexOf('/')) || '/memories';
}

export function basename(path) {
  return path.slice(path.lastIndexOf('/') + 1);
}
