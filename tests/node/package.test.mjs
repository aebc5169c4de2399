// The package as a user installs it: `npm pack`, installed into a fresh project
// (offline: memdir has no dependencies), imported by name and run from its bin.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { tempDir } from './helpers.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const npm = (args, cwd) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

test('npm pack, install into a fresh project, import by name, run the bin', async () => {
  const out = tempDir('memdir-pack-');
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', out], ROOT));
  const files = packed[0].files.map((f) => f.path).sort();
  for (const f of ['dist/memdir_wasm_bg.wasm', 'dist/memdir_wasm.js', 'js/core.js', 'js/node.js', 'js/browser.js', 'js/workerd.js', 'js/default.js', 'js/index.d.ts', 'js/stores/directory.js', 'bin/memdir.js']) {
    assert.ok(files.includes(f), `${f} is in the package`);
  }
  assert.ok(!files.some((f) => f.startsWith('tests/') || f.startsWith('crates/') || f.startsWith('src/')), 'no sources or tests shipped');

  const app = tempDir('memdir-app-');
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', type: 'module', private: true }));
  npm(['install', '--offline', join(out, packed[0].filename)], app);
  writeFileSync(
    join(app, 'main.mjs'),
    `import { openMemory, directoryStore, betaMemoryTool } from 'memdir';
const memory = await openMemory({ store: directoryStore('./memory') });
const tool = betaMemoryTool(memory);
console.log(await tool.run({ command: 'create', path: '/memories/hello.md', file_text: 'hi' }));`,
  );
  assert.equal(execFileSync(process.execPath, ['main.mjs'], { cwd: app, encoding: 'utf8' }), 'File created successfully at: /memories/hello.md\n');
  const bin = join(app, 'node_modules', '.bin', 'memdir');
  assert.equal(execFileSync(bin, ['view', 'hello.md'], { cwd: app, encoding: 'utf8' }), "Here's the content of /memories/hello.md with line numbers:\n     1\thi\n");
  const pkg = JSON.parse(readFileSync(join(app, 'node_modules', 'memdir', 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(pkg.exports['.']), ['types', 'workerd', 'browser', 'node', 'default']);
});
