#!/usr/bin/env node
// `npm run bench:browser`: the 1,000-command agent workload of bench/node over the
// IndexedDB store in headless Chromium, against the floor of one raw IndexedDB
// transaction carrying the same file bytes, measured in the same page, command by
// command, interleaved. Prints per-command-kind medians, the ratio (target: within
// 1.2x of the floor) and the transactions memdir opened per command.
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
    const f = median(rs.map((r) => r.floor));
    const total = rs.reduce((s, r) => s + r.memdir, 0) / rs.reduce((s, r) => s + r.floor, 0);
    rows.push([
      kind,
      String(rs.length),
      m.toFixed(3),
      f.toFixed(3),
      `${(m / f).toFixed(2)}x`,
      `${total.toFixed(2)}x`,
      mean(rs.map((r) => r.readonly)).toFixed(2),
      mean(rs.map((r) => r.readwrite)).toFixed(2),
    ]);
  }
  const head = ['command', 'n', 'memdir ms', 'floor ms', 'median ratio', 'total ratio', 'ro tx/cmd', 'rw tx/cmd'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\nper-command medians (memdir: Memory.execute over indexedDbStore; floor: one raw IndexedDB transaction):');
  console.log(fmt(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(fmt(r));
  const errors = results.filter((r) => r.error);
  console.log(`\nerror answers: ${errors.length}${errors.length ? ` (first: ${errors[0].error})` : ''}`);
  const all = rows.at(-1);
  const ratio = Number(all[4].replace('x', ''));
  console.log(`target: memdir within 1.2x of the floor (median over all commands): ${all[4]} ${ratio <= 1.2 ? 'met' : 'NOT met'}`);
} finally {
  await browser.close();
  await srv.close();
}
