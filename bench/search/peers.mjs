// The peers of `npm run bench:search`, each over the same documents and the same
// writes as memdir: today's substring search and SQLite FTS5 (better-sqlite3) with
// the unicode61 and the trigram tokenizers. Each is `{ name, put(docs), remove(path),
// search(query, limit) }`, `search` answering paths best first.
import { statSync } from 'node:fs';

/**
 * Tree order: paths compared segment by segment, as memory_search on main walks the
 * tree (src/api/search.rs compares `path.split('/')`).
 */
export function treeOrder(a, b) {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

/**
 * Today's memory_search (main, src/api/search.rs): every live document under the
 * prefix read on every call, in tree order; a document is a hit when one of its lines,
 * lowercased, contains the whole query lowercased; the first `limit` hits are the answer.
 * Its documents are kept sorted (the tree is), so keeping them costs the writes.
 */
export function substringPeer() {
  const docs = new Map();
  let order = null;
  return {
    name: 'substring',
    put(list) {
      for (const { path, content } of list) {
        if (!docs.has(path)) order = null;
        docs.set(path, content);
      }
    },
    remove(path) {
      docs.delete(path);
      order = null;
    },
    search(query, limit) {
      order ??= [...docs.keys()].sort(treeOrder);
      const needle = query.toLowerCase();
      const out = [];
      for (const path of order) {
        if (docs.get(path).split('\n').some((line) => line.toLowerCase().includes(needle))) {
          out.push(path);
          if (out.length >= limit) break;
        }
      }
      return out;
    },
  };
}

const HAN_LIKE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const quote = (t) => `"${t.replace(/"/g, '""')}"`;

/**
 * The FTS5 MATCH expression a user gets the best from, per tokenizer:
 * - unicode61: every token of the query (runs of letters and digits, as unicode61
 *   splits them) as a quoted string, OR'ed, so a document with any of them is found
 *   and bm25() ranks those with more and rarer ones first. A run of Han characters is
 *   one unicode61 token, found only where a document has the same run.
 * - trigram: every whitespace-separated word of the query, stripped of punctuation at
 *   its ends, as a quoted substring (so `LH-992-104-337` or `api.apollo.example.com`
 *   match as written and `richtlinie` matches inside `sicherheitsrichtlinie`), OR'ed;
 *   a word with Han, Kana or Hangul longer than 3 characters is split into its
 *   overlapping 3-character pieces, since a Chinese query is rarely a substring of the
 *   text as a whole. Words under 3 characters are left out: trigram cannot match them.
 * Answers null when nothing of the query is left to match.
 */
export function matchExpression(query, tokenizer) {
  let terms;
  if (tokenizer === 'unicode61') {
    terms = query.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  } else {
    terms = [];
    for (const raw of query.split(/\s+/)) {
      const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
      const chars = [...word];
      if (chars.length > 3 && HAN_LIKE.test(word)) {
        for (let i = 0; i + 3 <= chars.length; i++) terms.push(chars.slice(i, i + 3).join(''));
      } else if (chars.length >= 3) {
        terms.push(word);
      }
    }
  }
  terms = [...new Set(terms)];
  return terms.length ? terms.map(quote).join(' OR ') : null;
}

/**
 * SQLite FTS5 through better-sqlite3, one database file in `dir`: a table of the
 * path and the body, both indexed, as a user would keep memories in it; writes in one
 * transaction per batch (`put`), deletes and updates as rows; searched by
 * matchExpression() ranked by bm25().
 */
export function ftsPeer(Database, tokenizer, file) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE VIRTUAL TABLE docs USING fts5(path, body, tokenize = '${tokenizer}')`);
  const del = db.prepare('DELETE FROM docs WHERE path = ?');
  const ins = db.prepare('INSERT INTO docs (path, body) VALUES (?, ?)');
  const find = db.prepare('SELECT path FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), path LIMIT ?').pluck();
  const putAll = db.transaction((list, replace) => {
    for (const { path, content } of list) {
      if (replace) del.run(path);
      ins.run(path, content);
    }
  });
  return {
    name: `fts5-${tokenizer}`,
    /** Inserts `list`; `replace` deletes each path's row first (an update). */
    put(list, replace = true) {
      putAll(list, replace);
    },
    remove(path) {
      del.run(path);
    },
    search(query, limit) {
      const match = matchExpression(query, tokenizer);
      return match === null ? [] : find.all(match, limit);
    },
    /** The database file and its write-ahead log, checkpointed first. */
    fileBytes() {
      db.pragma('wal_checkpoint(TRUNCATE)');
      return statSync(file).size;
    },
    /** The inverted index proper: the blocks of FTS5's `_data` table (the text itself and its sizes are kept apart). */
    indexBytes() {
      return db.prepare('SELECT sum(length(block)) FROM docs_data').pluck().get();
    },
    close() {
      db.close();
    },
  };
}
