// The explorer's search box: the engine's ranked hits (`memory.search`, best first,
// each with its score and its best matching lines, numbered) listed in place of the
// tree, the query's words marked in each line. The ranking, the lines and their
// numbers are the engine's; the page only marks where the words stand in a line.

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
};

/**
 * The query's words as the page marks them: split at spaces and punctuation,
 * folded as the engine folds them (NFKC, then lower case), longest first so that a
 * longer word is marked whole where a shorter one lies inside it.
 */
export function words(query) {
  const folded = query.normalize('NFKC').toLowerCase();
  const out = new Set(folded.split(/[\s\p{P}\p{S}]+/u).filter(Boolean));
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * `text` as nodes with every occurrence of the query's words in a `<mark>`. A line
 * whose folding changes its length (a rare letter whose lower case is longer) is
 * left unmarked rather than marked at the wrong place.
 */
export function highlight(text, query) {
  const folded = text.normalize('NFKC').toLowerCase();
  if (folded.length !== text.length) return [text];
  const marked = new Array(text.length).fill(false);
  for (const w of words(query)) {
    for (let at = folded.indexOf(w); at !== -1; at = folded.indexOf(w, at + w.length)) {
      for (let i = at; i < at + w.length; i++) marked[i] = true;
    }
  }
  const out = [];
  let i = 0;
  while (i < text.length) {
    let j = i;
    while (j < text.length && marked[j] === marked[i]) j++;
    const part = text.slice(i, j);
    out.push(marked[i] ? el('mark', { textContent: part }) : part);
    i = j;
  }
  return out;
}

// What a hit's score is in each mode (docs/semantic.md#modes).
const SCORE_NAMES = { lexical: 'BM25 score', semantic: 'cosine', hybrid: 'reciprocal-rank fusion score' };

/**
 * Why the page offers only lexical search: memdir does not embed by itself, and a
 * memory opened in a page has no embedder unless something lends it one.
 */
export const NO_EMBEDDER_NOTE =
  'Words only: this page has no embedder, and memdir embeds nothing itself (docs/semantic.md says how to lend one).';

/**
 * Sets the mode selector `select` (and its `note`) for a memory with an embedder
 * (`hasEmbedder`: every mode, hybrid chosen, as the engine's default) or without
 * (words only, the other modes shown but disabled, and why).
 */
export function setModes(select, note, hasEmbedder) {
  for (const option of select.options) option.disabled = !hasEmbedder && option.value !== 'lexical';
  select.value = hasEmbedder ? 'hybrid' : 'lexical';
  select.title = hasEmbedder ? 'Rank by words, meaning or both' : NO_EMBEDDER_NOTE;
  note.textContent = hasEmbedder ? '' : NO_EMBEDDER_NOTE;
  note.hidden = hasEmbedder;
}

/**
 * Lists `hits` (`[{path, score, lines: [{line, text}]}]`) in `root`; `open(path,
 * line)` shows a file (at a line when one was clicked). `error`: the engine's text
 * for a refused query, shown instead.
 */
export function renderHits(root, { query, hits, error, mode = 'lexical' }, open) {
  // Which query the list answers (a test, or a person's devtools, can tell).
  root.dataset.query = query;
  if (error) {
    root.replaceChildren(el('li', { className: 'hits-note error-text', textContent: error }));
    return;
  }
  if (hits.length === 0) {
    root.replaceChildren(el('li', { className: 'hits-note', textContent: `No memory matches “${query}”.` }));
    return;
  }
  root.replaceChildren(
    ...hits.map((h) => {
      const item = el(
        'li',
        { className: 'hit', title: h.path, onclick: () => open(h.path, null) },
        el(
          'div',
          { className: 'hit-head' },
          el('span', { className: 'hit-path', textContent: h.path }),
          el('span', { className: 'hit-score', textContent: h.score.toFixed(3), title: SCORE_NAMES[mode] ?? SCORE_NAMES.lexical }),
        ),
        ...h.lines.map((l) =>
          el(
            'div',
            {
              className: 'hit-line',
              onclick: (e) => {
                e.stopPropagation();
                open(h.path, l.line);
              },
            },
            el('span', { className: 'ln', textContent: String(l.line) }),
            el('span', { className: 'lt' }, ...highlight(l.text, query)),
          ),
        ),
      );
      item.dataset.path = h.path;
      return item;
    }),
  );
}
