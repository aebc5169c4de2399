// Serves the wrangler bundle in argv[2] in workerd through miniflare, as
// worker/wrangler.toml describes it, and posts the tool inputs given as JSON in
// argv[3] over loopback HTTP, one at a time. Prints the answers as JSON.
import { request } from 'node:http';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';

const out = process.argv[2];
const inputs = JSON.parse(process.argv[3]);
const post = (url, body) =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });

const mf = new Miniflare({
  scriptPath: join(out, 'index.js'),
  modulesRoot: out,
  modules: true,
  modulesRules: [
    { type: 'ESModule', include: ['**/*.js'] },
    { type: 'CompiledWasm', include: ['**/*.wasm'] },
  ],
  compatibilityDate: '2026-04-20',
  durableObjects: { MEMORY: { className: 'MemoryObject', useSQLite: true } },
});
try {
  const url = await mf.ready;
  const answers = [];
  for (const input of inputs) answers.push(await post(url, JSON.stringify(input)));
  console.log(JSON.stringify(answers));
} finally {
  await mf.dispose();
}
