#!/usr/bin/env node
// `npm run bench:browser`: the 1,000-command agent workload of bench/node over the
// IndexedDB store in headless Chromium, against the floor of one raw IndexedDB
// transaction carrying the same bytes (and a file-per-record floor), measured in the
// same page, command by command, interleaved. Prints per-command-kind medians, the
// ratios (target: within 1.2x of the same-bytes floor) and the transactions memdir
// opened per command (see bench/browser/page.js for both floors).
//   node bench/browser/bench.mjs [--commands N] [--files N] [--seed N]
import { launch, server } from '../../tests/browser/chromium.mjs';
import { buildIfNeeded } from '../../www/serve.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const options = { commands: arg('commands', 1000), files: arg('files', 200), seed: arg('seed', 42) };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

buildIfNeeded();
const srv = await server();
const browser = await launch();
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${srv.url}/bench/browser/bench.mjs`); // any same-origin document
  const { results, files, isolated, agent } = await page.evaluate(
    async (o) => (await import('/bench/browser/page.js')).run(o),
    options,
  );
  const version = agent.match(/Chrome\/[\d.]+/)?.[0] ?? agent;
  console.log(
    `workload: ${results.length} commands over ${files} files (seed ${options.seed}); ${version}, headless;` +
      ` timer ${isolated ? '5 µs (cross-origin isolated)' : '100 µs'}`,
  );
  const kinds = [...new Set(results.map((r) => r.kind))].sort();
  const rows = [];
  for (const kind of [...kinds, 'all']) {
    const rs = results.filter((r) => kind === 'all' || r.kind === kind);
    const m = median(rs.map((r) => r.memdir));
    const same = median(rs.map((r) => r.same));
    const f = median(rs.map((r) => r.floor));
    rows.push([
      kind,
      String(rs.length),
      m.toFixed(3),
      same.toFixed(3),
      `${(m / same).toFixed(2)}x`,
      f.toFixed(3),
      `${(m / f).toFixed(2)}x`,
      mean(rs.map((r) => r.readonly)).toFixed(2),
      mean(rs.map((r) => r.readwrite)).toFixed(2),
      mean(rs.map((r) => r.records)).toFixed(1),
      (mean(rs.map((r) => r.bytes)) / 1024).toFixed(1),
    ]);
  }
  const head = ['command', 'n', 'memdir ms', 'same-bytes ms', 'ratio', 'file-floor ms', 'ratio', 'ro tx', 'rw tx', 'records', 'KiB'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\nper-command medians; memdir: Memory.execute over indexedDbStore');
  console.log('  same-bytes: one raw transaction replaying the requests memdir made (same keys, same bytes)');
  console.log('  file-floor: one raw transaction of a file-per-record store (read the file / put its new content)');
  console.log('  ro tx, rw tx: transactions memdir opened per command; records, KiB: what it put per command');
  console.log(fmt(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(fmt(r));
  const errors = results.filter((r) => r.error);
  console.log(`\nerror answers: ${errors.length}${errors.length ? ` (first: ${errors[0].error})` : ''}`);
  const worst = rows.slice(0, -1).reduce((a, r) => (Number(r[4].slice(0, -1)) > Number(a[4].slice(0, -1)) ? r : a));
  const met = Number(worst[4].slice(0, -1)) <= 1.2;
  console.log(`target: every command kind within 1.2x of the same-bytes floor: worst ${worst[0]} ${worst[4]}, ${met ? 'met' : 'NOT met'}`);
} finally {
  await browser.close();
  await srv.close();
}
