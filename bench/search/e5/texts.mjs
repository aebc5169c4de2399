#!/usr/bin/env node
// The texts bench/search/semantic.mjs embeds at 1,000 memories (the live documents
// after the deletes and redactions, and every query), as JSON on stdout, for
// precompute.py to embed offline with multilingual-e5-small.
//   node bench/search/e5/texts.mjs > /tmp/texts.json
import { readFileSync } from 'node:fs';
import { corpus, QUERIES } from '../corpus.mjs';

const EXTRA = JSON.parse(readFileSync(new URL('../semantic-queries.json', import.meta.url), 'utf8')).queries;
const c = corpus({ size: 1000 });
const documents = new Set(c.live.map((d) => d.content));
for (const r of c.redacted) {
  documents.add(r.text);
  documents.add(r.after);
}
for (const d of c.deleted) documents.add(d.text);
const queries = [...QUERIES, ...EXTRA].map((q) => q.query);
process.stdout.write(JSON.stringify({ documents: [...documents], queries }));
