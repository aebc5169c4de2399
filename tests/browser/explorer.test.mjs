// The memory explorer (www/) end to end in Chromium: the console's form and JSON
// input, the tree, persistence across a reload, page actions going through the
// engine's commands, export/import, and the messages for unavailable or full storage.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { OUT, useBrowser } from './chromium.mjs';

const SNIPPET_HEAD = 'The memory file has been edited. Here is the snippet showing the change (with line numbers):';

const env = useBrowser();

function open(context, memory, { quota } = {}) {
  // A real quota: Chromium's own, shrunk for this origin through the DevTools
  // protocol before the page first touches storage.
  const setUp = async (page) => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: env.url, quotaSize: quota });
  };
  // The explorer's console is the page's second tab; #console opens it.
  return env.openExplorer(context, `?memory=${encodeURIComponent(memory)}#console`, quota ? setUp : undefined);
}

const row = (page, path) => page.locator(`.tree .row[title="${path}"]`);
const result = (page) => page.locator('#tool-result pre.content');

async function runForm(page, command, fields) {
  await page.click(`.commands button[data-command="${command}"]`);
  for (const [name, value] of Object.entries(fields)) await page.fill(`#field-${name}`, String(value));
  await page.click('#run');
}

test('create through the form, see it in the tree, reload, str_replace from the console', async () => {
  const context = await env.browser.newContext();
  const { page, errors } = await open(context, 'e2e');
  const text = '# Todo\n- buy milk\n- write the e2e test\n- ship it';

  await runForm(page, 'create', { path: '/memories/notes/todo.md', file_text: text });
  await page.waitForFunction(() => document.querySelector('#tool-result pre.content')?.textContent.startsWith('File created'));
  assert.equal(await result(page).textContent(), 'File created successfully at: /memories/notes/todo.md');
  assert.equal(await page.locator('#tool-result .badge').textContent(), 'is_error: false');

  // In the tree, with the engine's size, and opened in the file view.
  await row(page, '/memories/notes/todo.md').waitFor();
  assert.equal(await row(page, '/memories/notes/todo.md').locator('.size').textContent(), `${Buffer.byteLength(text)}B`);
  assert.equal(await row(page, '/memories').locator('.size').textContent(), `${Buffer.byteLength(text)}B`);

  // Reload: the memory is in IndexedDB, not in the page.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await row(page, '/memories/notes/todo.md').click();
  await page.waitForSelector('.code .line');
  const lines = await page.locator('.code .line').evaluateAll((ls) =>
    ls.map((l) => `${l.querySelector('.ln').textContent}|${l.querySelector('.lt').textContent}`),
  );
  assert.deepEqual(lines, ['1|# Todo', '2|- buy milk', '3|- write the e2e test', '4|- ship it']);
  assert.equal(await page.locator('#view-head .meta').textContent(), `${Buffer.byteLength(text)}B · 4 lines`);

  // A pasted tool input, run from the console, answers with the exact snippet.
  const input = { command: 'str_replace', path: '/memories/notes/todo.md', old_str: 'write the e2e test', new_str: 'write the e2e test (done)' };
  await page.fill('#tool-input', JSON.stringify(input));
  await page.press('#tool-input', 'Control+Enter');
  await page.waitForFunction((h) => document.querySelector('#tool-result pre.content')?.textContent.startsWith(h), SNIPPET_HEAD);
  assert.equal(
    await result(page).textContent(),
    `${SNIPPET_HEAD}\n     1\t# Todo\n     2\t- buy milk\n     3\t- write the e2e test (done)\n     4\t- ship it`,
  );
  // The file view follows.
  await page.waitForFunction(() => [...document.querySelectorAll('.code .lt')].some((l) => l.textContent === '- write the e2e test (done)'));

  // The raw tool output tab is the exact text the model sees.
  await page.click('#view-head button:has-text("Raw")');
  assert.equal(
    await page.locator('#view-body pre.raw').textContent(),
    "Here's the content of /memories/notes/todo.md with line numbers:\n     1\t# Todo\n     2\t- buy milk\n     3\t- write the e2e test (done)\n     4\t- ship it",
  );
  await page.click('#view-head button:has-text("View")');
  await page.waitForSelector('.code .line');

  // A few more memories so the screenshot shows a real tree.
  await page.evaluate(async () => {
    const m = window.memdirExplorer.memory;
    const files = {
      '/memories/user/preferences.md': '# Preferences\n- concise answers\n- timezone: Europe/Berlin\n- prefers Rust and TypeScript',
      '/memories/projects/memdir/status.md': '# Status\n## Done\n- IndexedDB store\n- conformance in Chromium\n## Next\n- benchmarks',
      '/memories/projects/memdir/decisions/0001-head-cas.md': 'One head, one compare-and-swap per command.',
      '/memories/projects/website/todo.md': '- fix the header\n- deploy',
    };
    for (const [path, file_text] of Object.entries(files)) await m.execute({ command: 'create', path, file_text });
    await window.memdirExplorer.refresh();
  });
  for (const dir of ['/memories/projects', '/memories/projects/memdir', '/memories/user']) {
    await row(page, dir).locator('.caret').click();
    await row(page, `${dir}/`.replace(/\/$/, '')).waitFor();
  }
  await row(page, '/memories/projects/memdir/status.md').waitFor();
  await row(page, '/memories/notes/todo.md').click();
  await page.waitForSelector('.code .line');
  // The form shows the fields of the JSON that was pasted.
  assert.equal(await page.inputValue('#field-old_str'), 'write the e2e test');
  await page.screenshot({ path: join(OUT, 'explorer.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

test('page actions go through the engine commands and are logged', async () => {
  const context = await env.browser.newContext();
  const { page, errors } = await open(context, 'actions');

  // New file (dialog) -> create.
  await page.click('#new-file');
  await page.fill('dialog input[name="path"]', '/memories/a/draft.md');
  await page.fill('dialog textarea[name="file_text"]', 'first line\nsecond line');
  await page.click('dialog button[type="submit"]');
  await row(page, '/memories/a/draft.md').waitFor();
  assert.equal(await result(page).textContent(), 'File created successfully at: /memories/a/draft.md');

  // Edit -> one str_replace of the whole text.
  await row(page, '/memories/a/draft.md').click();
  await page.click('#view-head button:has-text("Edit")');
  await page.fill('textarea.editor', 'first line\nsecond line, edited\nthird line');
  await page.click('#view-head button:has-text("Save")');
  await page.waitForFunction(() => [...document.querySelectorAll('.code .lt')].some((l) => l.textContent === 'third line'));
  assert.ok((await result(page).textContent()).startsWith(SNIPPET_HEAD));

  // Rename (dialog) -> rename; the view follows the file.
  await page.click('#view-head button:has-text("Rename")');
  await page.fill('dialog input[name="new_path"]', '/memories/b/final.md');
  await page.click('dialog button[type="submit"]');
  await row(page, '/memories/b/final.md').waitFor();
  assert.equal(await result(page).textContent(), 'Successfully renamed /memories/a/draft.md to /memories/b/final.md');
  assert.equal(await row(page, '/memories/a/draft.md').count(), 0);

  // Delete (confirm) -> delete.
  await page.click('#view-head button:has-text("Delete")');
  await page.click('dialog button[type="submit"]');
  await page.waitForFunction(() => !document.querySelector('.tree .row[title="/memories/b/final.md"]'));
  assert.equal(await result(page).textContent(), 'Successfully deleted /memories/b/final.md');

  // The history lists each command, newest first, marked as the page's.
  const history = await page.locator('#history summary .cmd').allTextContents();
  assert.deepEqual(history.slice(0, 4), ['delete', 'rename', 'str_replace', 'create']);
  assert.equal(await page.locator('#history summary .source').count(), 4);

  // An error is shown as the engine's exact tool_result, flagged is_error.
  await page.fill('#tool-input', '{"command": "view", "path": "/memories/../etc/passwd"}');
  await page.click('#run');
  await page.waitForFunction(() => document.querySelector('#tool-result .badge')?.textContent === 'is_error: true');
  assert.equal(await result(page).textContent(), 'Error: Path /memories/../etc/passwd would escape /memories directory');
  await page.fill('#tool-input', '{"command": "view", "path": ');
  await page.click('#run');
  await page.waitForFunction(() => document.querySelector('#tool-result pre.content')?.textContent.includes('not valid JSON'));
  assert.equal(await result(page).textContent(), 'Error: Invalid tool input: not valid JSON');
  assert.deepEqual(errors, []);
  await context.close();
});

test('export the whole memory as JSON and import it back', async () => {
  const context = await env.browser.newContext({ acceptDownloads: true });
  const { page, errors } = await open(context, 'export');
  await page.evaluate(async () => {
    const m = window.memdirExplorer.memory;
    await m.execute({ command: 'create', path: '/memories/x/one.txt', file_text: 'one' });
    await m.execute({ command: 'create', path: '/memories/two.md', file_text: 'two\nlines' });
    await window.memdirExplorer.refresh();
  });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  assert.equal(download.suggestedFilename(), 'memdir-export.json');
  const file = join(OUT, 'memdir-export.json');
  await download.saveAs(file);
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(doc.format, 'memdir-export');
  assert.deepEqual(doc.entries, [
    { path: '/memories/two.md', content: 'two\nlines' },
    { path: '/memories/x' },
    { path: '/memories/x/one.txt', content: 'one' },
  ]);

  // Change the memory, then import the export: the whole tree is replaced.
  await page.evaluate(() => window.memdirExplorer.memory.execute({ command: 'delete', path: '/memories/x' }));
  await page.evaluate(() => window.memdirExplorer.memory.execute({ command: 'create', path: '/memories/extra.txt', file_text: 'e' }));
  await page.setInputFiles('#import-file', file);
  await page.click('dialog button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#tool-result .label')?.textContent === 'import');
  assert.equal(await result(page).textContent(), 'Imported 3 entries from memdir-export.json');
  assert.deepEqual(await page.evaluate(() => window.memdirExplorer.memory.entries()), doc.entries);
  await row(page, '/memories/x/one.txt').waitFor();
  assert.equal(await row(page, '/memories/extra.txt').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a clear message when IndexedDB is unavailable (private mode)', async () => {
  const context = await env.browser.newContext();
  // What private modes and storage-blocking settings do: refuse to open a database.
  await context.addInitScript(() => {
    IDBFactory.prototype.open = function () {
      throw new DOMException('The user denied permission to access the database.', 'SecurityError');
    };
  });
  const { page, errors } = await open(context, 'private');
  await page.waitForSelector('#banner:not([hidden])');
  assert.match(await page.locator('#banner').textContent(), /^IndexedDB is unavailable here\./);
  await runForm(page, 'create', { path: '/memories/a.txt', file_text: 'x' });
  await page.waitForFunction(() => document.querySelector('#tool-result .badge')?.textContent === 'is_error: true');
  assert.equal(await result(page).textContent(), "Error: The memory directory's storage is unavailable right now; nothing was changed.");
  await page.screenshot({ path: join(OUT, 'explorer-unavailable.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a clear message when storage is full, and nothing half-written', async () => {
  const context = await env.browser.newContext();
  const { page, errors } = await open(context, 'full', { quota: 512 * 1024 });
  await runForm(page, 'create', { path: '/memories/small.txt', file_text: 'fits' });
  await row(page, '/memories/small.txt').waitFor();
  const outcome = await page.evaluate(async () => {
    const m = window.memdirExplorer.memory;
    // Random text: IndexedDB compresses values, so a run of one letter would fit.
    const noise = (n) => {
      const b = new Uint8Array(n);
      for (let j = 0; j < n; j += 65536) crypto.getRandomValues(b.subarray(j, j + 65536));
      return Array.from(b, (x) => String.fromCharCode(97 + (x % 26))).join('');
    };
    window.noise = noise;
    let r;
    for (let i = 0; i < 40; i++) {
      const file_text = noise(90_000);
      r = await m.execute({ command: 'create', path: `/memories/big/${i}.txt`, file_text });
      if (r.is_error) return { i, r, entries: await m.entries() };
    }
    return { i: 40, r };
  });
  assert.ok(outcome.i < 40, 'the quota was never reached');
  assert.deepEqual(outcome.r, { content: "Error: The memory directory's storage is full; nothing was changed.", is_error: true });
  assert.equal(outcome.entries.some((e) => e.path === `/memories/big/${outcome.i}.txt`), false);
  // The page shows it when a person's command hits it.
  await runForm(page, 'create', { path: '/memories/more.txt', file_text: await page.evaluate(() => window.noise(90_000)) });
  await page.waitForSelector('#banner:not([hidden])');
  assert.match(await page.locator('#banner').textContent(), /^Storage is full\./);
  assert.deepEqual(errors, []);
  await context.close();
});

test('on a phone (390 px) nothing is wider than the screen and the file view takes its width', async () => {
  const context = await env.browser.newContext();
  const phone = (page) => page.setViewportSize({ width: 390, height: 844 });
  const { page, errors } = await env.openExplorer(context, '?memory=phone#console', phone);
  await runForm(page, 'create', { path: '/memories/phone.md', file_text: 'a line\n' });
  await row(page, '/memories/phone.md').click();
  await page.waitForSelector('.code .line');
  const widths = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    bar: document.querySelector('.bar').scrollWidth,
    view: Math.round(document.querySelector('.view-panel').getBoundingClientRect().width),
  }));
  await page.screenshot({ path: join(OUT, 'explorer-390px.png'), fullPage: true });
  // 390 less the layout's 8 px padding each side.
  assert.deepEqual(widths, { page: 390, bar: 390, view: 374 });
  assert.deepEqual(errors, []);
  await context.close();
});

// What a person sees at a phone's size and a laptop's, measured from the DOM: the
// page opens at its top, the console's result box stays clear of its History list,
// a file's History table keeps Restore and Redact inside its panel, and the file
// header shows the whole path. Screenshots of each go to target/browser-test/.
// 1440×860, the other suites' size, is the one where the History table keeps its
// columns.
for (const [width, height] of [
  [390, 844],
  [1280, 800],
  [1440, 860],
]) {
  test(`at ${width}×${height} the page opens at its top and every panel shows its whole content`, async () => {
    const size = `${width}x${height}`;
    const shot = (name) => join(OUT, `layout-${size}-${name}.png`);
    const context = await env.browser.newContext();
    const { page, errors } = await env.openExplorer(context, `?memory=layout-${size}`, (p) => p.setViewportSize({ width, height }));

    // Opened as a newcomer opens it (the chat tab, no key yet): at the top, the bar
    // and the tree in view.
    const box = (sel) =>
      page.evaluate((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return { top: Math.round(r.top), bottom: Math.round(r.bottom), left: Math.round(r.left), right: Math.round(r.right) };
      }, sel);
    const inView = (r) => r.top >= 0 && r.left >= 0 && r.bottom <= height && r.right <= width;
    // Every measure is taken before any is compared, so a failure shows them all.
    const found = {};
    await page.screenshot({ path: shot('open') });
    found.opened = {
      scrollY: await page.evaluate(() => window.scrollY),
      barInView: inView(await box('.bar')),
      treeInView: inView(await box('.tree-panel')),
    };

    // A file with three versions, opened from the tree: the header shows its whole
    // path. The middle version's actor has a long name, as an API key's digest has.
    await page.evaluate(async () => {
      const m = window.memdirExplorer.memory;
      const lines = Array.from({ length: 40 }, (_, i) => `- item ${i + 1} of the day`).join('\n');
      await m.execute({ command: 'create', path: '/memories/notes/today.md', file_text: `# Today\n${lines}` });
      const memdir = await import('/js/browser.js');
      const other = await memdir.openMemory({ store: memdir.indexedDbStore(new URLSearchParams(location.search).get('memory')), actor: 'nightly-summary-agent-0123456789abcdef' });
      await other.execute({ command: 'str_replace', path: '/memories/notes/today.md', old_str: '# Today', new_str: '# Today (Monday)' });
      await m.execute({ command: 'str_replace', path: '/memories/notes/today.md', old_str: 'item 1 ', new_str: 'item one ' });
      await window.memdirExplorer.refresh();
    });
    await row(page, '/memories/notes').waitFor();
    if ((await row(page, '/memories/notes/today.md').count()) === 0) await row(page, '/memories/notes').locator('.caret').click();
    await row(page, '/memories/notes/today.md').click();
    await page.waitForSelector('.code .line');
    found.header = await page.evaluate(() => {
      const c = document.querySelector('#view-head .crumbs');
      const r = c.getBoundingClientRect();
      const head = document.querySelector('#view-head').getBoundingClientRect();
      return { text: c.textContent, cut: c.scrollWidth > c.clientWidth, inside: r.left >= head.left && r.right <= head.right };
    });
    await page.locator('.view-panel').screenshot({ path: shot('file') });

    // Its History: no row wider than the panel, Restore and Redact of every row inside it.
    await page.click('#view-head button:has-text("History")');
    await page.waitForFunction(() => document.querySelectorAll('#history-panel tr.version').length === 3);
    found.history = await page.evaluate(() => {
      const body = document.querySelector('#view-body');
      const v = body.getBoundingClientRect();
      const outside = [];
      for (const tr of document.querySelectorAll('#history-panel tr.version')) {
        for (const b of tr.querySelectorAll('button')) {
          const r = b.getBoundingClientRect();
          if (!(r.left >= v.left && r.right <= v.right && r.top >= v.top && r.bottom <= v.bottom)) outside.push(`${tr.dataset.id} ${b.textContent}`);
        }
      }
      return {
        overflow: body.scrollWidth > body.clientWidth,
        rows: [...document.querySelectorAll('#history-panel tr.version')].map((tr) =>
          [tr.querySelector('td.actor').textContent, ...[...tr.querySelectorAll('button')].map((b) => b.textContent)].join(' '),
        ),
        outside,
      };
    });
    await page.locator('.view-panel').screenshot({ path: shot('history') });

    // The console after a few commands, the last with a long result: the result box
    // ends above the History heading, which ends above the list.
    await page.click('#tab-console');
    for (const path of ['/memories', '/memories/notes', '/memories/notes/today.md']) {
      await page.fill('#tool-input', JSON.stringify({ command: 'view', path }));
      await page.click('#run');
      await page.waitForFunction((p) => document.querySelector('#history summary .path')?.textContent === p, path);
    }
    found.console = await page.evaluate(() => {
      const r = (s) => document.querySelector(s).getBoundingClientRect();
      const result = r('#tool-result');
      const head = r('#console .history-head');
      const list = r('#history');
      const pre = document.querySelector('#tool-result pre.content');
      return {
        resultAboveHead: result.bottom <= head.top,
        // What the box holds, too: the result's text ends above the History heading.
        textAboveHead: pre.getBoundingClientRect().bottom <= head.top,
        headAboveList: head.bottom <= list.top,
        // The box is as tall as what it holds: its text scrolls inside it, not over the list.
        resultWhole: document.querySelector('#tool-result').scrollHeight <= document.querySelector('#tool-result').clientHeight,
        preVisible: pre.getBoundingClientRect().bottom <= result.bottom,
      };
    });
    // The console scrolled to where the result ends and the History begins.
    await page.evaluate(() => {
      const c = document.querySelector('#console');
      c.scrollTop = document.querySelector('#console .history-head').offsetTop - c.offsetTop - c.clientHeight / 2;
    });
    await page.locator('.side-panel').screenshot({ path: shot('console') });
    await page.screenshot({ path: shot('page'), fullPage: true });
    assert.deepEqual(found, {
      opened: { scrollY: 0, barInView: true, treeInView: true },
      header: { text: '/memories/notes/today.md', cut: false, inside: true },
      history: {
        overflow: false,
        rows: [
          'session:explorer Show Restore Redact',
          'session:nightly-summary-agent-0123456789abcdef Show Restore Redact',
          'session:explorer Show Restore Redact',
        ],
        outside: [],
      },
      console: { resultAboveHead: true, textAboveHead: true, headAboveList: true, resultWhole: true, preVisible: true },
    });
    assert.deepEqual(errors, []);
    await context.close();
  });
}

// The search box: the engine's ranked hits (memory.search, from the npm package's
// memory object; it lands with issue 46's JS faces) in place of the tree, each
// with its score and its best lines, the query's words marked; a hit opens its
// file at the line clicked; a deleted hit leaves the list; a refused query shows
// the engine's words; clearing the box brings the tree back.
test('the search box lists ranked hits with their lines, the words marked, and opens a hit at its line', async () => {
  const context = await env.browser.newContext();
  const { page, errors } = await env.openExplorer(context, '?memory=search');
  await page.evaluate(async () => {
    const m = window.memdirExplorer.memory;
    await m.execute({ command: 'create', path: '/memories/notes/tabs.md', file_text: 'tabs tabs tabs\nother' });
    await m.execute({ command: 'create', path: '/memories/preferences/formatting.md', file_text: 'Wrap at 100 columns.\nUse Tabs, not spaces.' });
    await m.execute({ command: 'create', path: '/memories/notes/草稿.md', file_text: '我喜欢北京的秋天' });
    await window.memdirExplorer.refresh();
  });
  const hits = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('#hits .hit')].map((h) => ({
        path: h.querySelector('.hit-path').textContent,
        score: h.querySelector('.hit-score').textContent,
        lines: [...h.querySelectorAll('.hit-line')].map((l) => `${l.querySelector('.ln').textContent}|${l.querySelector('.lt').textContent}`),
        marked: [...h.querySelectorAll('mark')].map((m) => m.textContent),
      })),
    );
  const searchFor = async (query) => {
    await page.fill('#search-query', query);
    await page.press('#search-query', 'Enter');
    await page.waitForFunction((q) => {
      const h = document.querySelector('#hits');
      return !h.hidden && h.dataset.query === q && h.childElementCount > 0;
    }, query);
  };

  await searchFor('tabs');
  // The scores shown are the engine's, to three places.
  const scores = await page.evaluate(async () =>
    (await window.memdirExplorer.memory.search('tabs')).map((h) => h.score.toFixed(3)),
  );
  assert.deepEqual(await hits(), [
    { path: '/memories/notes/tabs.md', score: scores[0], lines: ['1|tabs tabs tabs'], marked: ['tabs', 'tabs', 'tabs'] },
    { path: '/memories/preferences/formatting.md', score: scores[1], lines: ['2|Use Tabs, not spaces.'], marked: ['Tabs'] },
  ]);
  assert.ok(Number(scores[0]) > Number(scores[1]));
  await page.screenshot({ path: join(OUT, 'explorer-search-hits.png') });
  assert.deepEqual(await page.evaluate(() => [document.querySelector('#tree').hidden, document.querySelector('#hits').hidden]), [true, false]);

  // A line clicked: its file opened, that line marked in the file view.
  await page.click('#hits .hit[title="/memories/preferences/formatting.md"] .hit-line');
  await page.waitForSelector('#view-body .code .line.found');
  assert.equal(await page.locator('#view-head .crumbs').textContent(), '/memories/preferences/formatting.md');
  assert.equal(
    await page.locator('#view-body .code .line.found').evaluate((l) => `${l.querySelector('.ln').textContent}|${l.querySelector('.lt').textContent}`),
    '2|Use Tabs, not spaces.',
  );

  // Chinese: found by its character pairs, the query marked inside the line.
  await searchFor('北京');
  assert.deepEqual(await hits(), [
    { path: '/memories/notes/草稿.md', score: (await page.evaluate(async () => (await window.memdirExplorer.memory.search('北京'))[0].score.toFixed(3))), lines: ['1|我喜欢北京的秋天'], marked: ['北京'] },
  ]);

  // A hit deleted is gone from the list as soon as the page redraws.
  await searchFor('tabs');
  await page.evaluate(async () => {
    await window.memdirExplorer.memory.execute({ command: 'delete', path: '/memories/notes/tabs.md' });
    await window.memdirExplorer.refresh();
  });
  await page.waitForFunction(() => document.querySelectorAll('#hits .hit').length === 1);
  assert.deepEqual((await hits()).map((h) => h.path), ['/memories/preferences/formatting.md']);

  // A query the engine refuses: its words. Nothing found: said so.
  await searchFor('...');
  assert.equal(
    await page.locator('#hits .hits-note.error-text').textContent(),
    'The search query holds no words to look for (only punctuation or symbols).',
  );
  await searchFor('zebra');
  assert.equal(await page.locator('#hits .hits-note').textContent(), 'No memory matches “zebra”.');

  // Cleared: the tree again.
  await page.fill('#search-query', '');
  await page.waitForFunction(() => document.querySelector('#hits').hidden && !document.querySelector('#tree').hidden);
  await page.screenshot({ path: join(OUT, 'explorer-search.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

test('the search mode selector: words only on a page without an embedder, and why; every mode with one lent to the page', async () => {
  const NOTE = 'Words only: this page has no embedder, and memdir embeds nothing itself (docs/semantic.md says how to lend one).';
  const modes = (page) =>
    page.evaluate(() => {
      const s = document.querySelector('#search-mode');
      const note = document.querySelector('#search-mode-note');
      return { value: s.value, disabled: [...s.options].filter((o) => o.disabled).map((o) => o.value), note: note.hidden ? null : note.textContent };
    });
  const files = async (page) => {
    await page.evaluate(async () => {
      const m = window.memdirExplorer.memory;
      await m.execute({ command: 'create', path: '/memories/prefs/editor.md', file_text: 'The user prefers dark mode in every editor.' });
      await m.execute({ command: 'create', path: '/memories/prefs/schedule.md', file_text: 'The user hates meetings before ten.' });
      await window.memdirExplorer.refresh();
    });
  };
  const searchFor = async (page, query) => {
    await page.fill('#search-query', query);
    await page.press('#search-query', 'Enter');
    await page.waitForFunction((q) => {
      const h = document.querySelector('#hits');
      return !h.hidden && h.dataset.query === q && h.childElementCount > 0;
    }, query);
    return page.evaluate(() => [...document.querySelectorAll('#hits li')].map((h) => h.querySelector('.hit-path')?.textContent ?? h.textContent));
  };

  // A page-only explorer: lexical, the other modes disabled, and the note saying why.
  const plain = await env.openExplorer(await env.browser.newContext(), '?memory=modes-plain');
  assert.deepEqual(await modes(plain.page), { value: 'lexical', disabled: ['semantic', 'hybrid'], note: NOTE });
  await files(plain.page);
  assert.deepEqual(await searchFor(plain.page, '夜间模式'), ['No memory matches “夜间模式”.']);
  assert.deepEqual(plain.errors, []);

  // An embedder lent to the page before it loads (a toy one: a direction per
  // concept): hybrid chosen, every mode offered, and a search by meaning finds
  // what its words do not.
  const lend = (page) =>
    page.addInitScript(() => {
      const concept = (t) => (/dark|夜间/.test(t) ? [1, 0, 0.1] : /meeting|morning/.test(t) ? [0, 1, 0.1] : [0, 0, 1]);
      window.memdirExplorerEmbedder = { id: 'toy-concepts', dims: 3, embed: async (texts) => texts.map(concept) };
    });
  const lent = await env.openExplorer(await env.browser.newContext(), '?memory=modes-lent', lend);
  assert.deepEqual(await modes(lent.page), { value: 'hybrid', disabled: [], note: null });
  await files(lent.page);
  assert.deepEqual(await searchFor(lent.page, '夜间模式'), ['/memories/prefs/editor.md', '/memories/prefs/schedule.md']);
  assert.equal(await lent.page.locator('#hits .hit-score').first().getAttribute('title'), 'reciprocal-rank fusion score');
  // Changing the mode runs the search again in it: words alone find nothing.
  await lent.page.selectOption('#search-mode', 'lexical');
  await lent.page.waitForFunction(() => document.querySelector('#hits .hits-note') !== null);
  assert.equal(await lent.page.locator('#hits .hits-note').textContent(), 'No memory matches “夜间模式”.');
  await lent.page.selectOption('#search-mode', 'semantic');
  await lent.page.waitForFunction(() => document.querySelector('#hits .hit') !== null);
  assert.equal(await lent.page.locator('#hits .hit-path').first().textContent(), '/memories/prefs/editor.md');
  assert.equal(await lent.page.locator('#hits .hit-score').first().getAttribute('title'), 'cosine');
  assert.deepEqual(lent.errors, []);
});
