// The browser agent (www/, the page `npm start` opens) end to end in Chromium: the
// official SDK running in the page talks to a loopback fake Messages API that
// answers with memory tool_use blocks, the tool runner runs them on IndexedDB, and
// the tree and file view show what the fake model wrote. The exact tool_result
// blocks the API received, the key staying in the tab (and going only to the API),
// persistence across a reload, and the page without a key are checked.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { MEMORY_SYSTEM_PROMPT } from '../../js/node.js';
import { modelReply } from '../fake-model.mjs';
import { OUT, useBrowser } from './chromium.mjs';

// A loaded 2-core machine: every wait is on a condition, with room to spare.
const WAIT = 90_000;

const KEY = 'sk-ant-test-0123456789-browser-agent';
const PROFILE = '/memories/profile.md';
const PROJECT = '/memories/projects/memdir.md';
const PROFILE_TEXT = '# Profile\n- name: Ada\n- prefers: tabs over spaces\n';
const PROJECT_TEXT = 'Status: writing the browser agent\nNext: the Playwright test\n';
const FINAL_TEXT = 'I saved your profile and the project status in my memory.';
const LISTING_HEAD = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";

// Each turn of the fake model: its memory calls, and the exact tool_result content
// (and is_error) the SDK must send back for each, in order. Calls of one turn run
// concurrently in the runner, so they never depend on each other.
const TURNS = [
  [[{ command: 'view', path: '/memories' }, `${LISTING_HEAD}\n0B\t/memories`, false]],
  [
    [{ command: 'create', path: PROFILE, file_text: PROFILE_TEXT }, `File created successfully at: ${PROFILE}`, false],
    [{ command: 'create', path: PROJECT, file_text: PROJECT_TEXT }, `File created successfully at: ${PROJECT}`, false],
  ],
  [
    [{ command: 'create', path: PROFILE, file_text: 'again' }, `Error: File ${PROFILE} already exists`, true],
    [
      { command: 'str_replace', path: PROJECT, old_str: 'writing', new_str: 'testing' },
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n' +
        '     1\tStatus: testing the browser agent\n     2\tNext: the Playwright test\n     3\t',
      false,
    ],
  ],
  [
    [
      { command: 'view', path: PROJECT },
      `Here's the content of ${PROJECT} with line numbers:\n     1\tStatus: testing the browser agent\n     2\tNext: the Playwright test\n     3\t`,
      false,
    ],
  ],
];
const FILES = [
  { path: '/memories/profile.md', content: PROFILE_TEXT },
  { path: '/memories/projects' },
  { path: '/memories/projects/memdir.md', content: 'Status: testing the browser agent\nNext: the Playwright test\n' },
];

/**
 * A Messages API on loopback answering each POST with the next scripted turn (then
 * a final text), and the browser's CORS preflight with permissive headers for a
 * loopback page. Records each request's headers and body.
 */
function fakeApi() {
  const requests = [];
  const preflights = [];
  const server = createServer((req, res) => {
    const origin = req.headers.origin ?? '';
    const cors = /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(origin)
      ? { 'access-control-allow-origin': origin, vary: 'origin' }
      : {};
    if (req.method === 'OPTIONS') {
      preflights.push({ url: req.url, origin, headers: req.headers['access-control-request-headers'] ?? '' });
      res.writeHead(204, {
        ...cors,
        'access-control-allow-methods': 'POST, GET, OPTIONS',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '*',
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const params = JSON.parse(body);
      requests.push({ method: req.method, url: req.url, headers: req.headers, params });
      const i = requests.length - 1;
      const turn = TURNS[i];
      const reply = modelReply(i, params.model, turn?.map(([input]) => input), { text: FINAL_TEXT, lead: `Turn ${i + 1}.` });
      res.writeHead(200, { ...cors, 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  return { server, requests, preflights };
}

const env = useBrowser();
let api;
let apiUrl;

before(async () => {
  api = fakeApi();
  await new Promise((r) => api.server.listen(0, '127.0.0.1', r));
  apiUrl = `http://127.0.0.1:${api.server.address().port}`;
});

after(async () => {
  await new Promise((r) => api?.server.close(r));
});

const open = (context, query) => env.openExplorer(context, `?${query}`, (page) => page.setDefaultTimeout(WAIT));

const row = (page, path) => page.locator(`.tree .row[title="${path}"]`);
const treePaths = (page) => page.locator('.tree .row').evaluateAll((rs) => rs.map((r) => r.title));

/** The chat's lines with each run of tool calls sorted: one turn's calls run concurrently. */
function inTurnOrder(lines) {
  const out = [];
  let run = [];
  for (const l of [...lines, '']) {
    if (l.startsWith('tool|')) run.push(l);
    else {
      out.push(...run.sort());
      run = [];
      if (l) out.push(l);
    }
  }
  return out;
}

/** Every request that carried the key anywhere, by origin. */
function watchKey(page) {
  const origins = [];
  page.on('request', (r) => {
    const where = `${r.url()} ${JSON.stringify(r.headers())} ${r.postData() ?? ''}`;
    if (where.includes(KEY)) origins.push(new URL(r.url()).origin);
  });
  return origins;
}

test('the page without a key says what it needs and still offers the explorer', async () => {
  const context = await env.browser.newContext();
  const { page, errors } = await open(context, 'memory=agent-nokey');
  assert.equal(await page.locator('#chat').getAttribute('data-state'), 'setup');
  assert.equal(
    await page.locator('#agent-needs').textContent(),
    'To talk to Claude with this memory, this page needs an Anthropic API key (console.anthropic.com → API keys). ' +
      'Without one, the rest of the page still works: the tree, the file view, and the Console & history tab.',
  );
  assert.equal(
    await page.locator('#key-notice').textContent(),
    "Your API key is kept in this tab's sessionStorage only (closing the tab forgets it) and is sent only to the API " +
      "below, never to this page's server. The API must be https://api.anthropic.com or a loopback address " +
      '(127.0.0.1 or localhost, for a local proxy or a test).',
  );
  assert.equal(await page.inputValue('#agent-api'), 'https://api.anthropic.com');
  assert.equal(await page.locator('#chat-composer').isHidden(), true);
  await page.screenshot({ path: join(OUT, 'agent-nokey.png') });

  // Sending without a key, or to an API that is neither Anthropic's nor loopback, is refused.
  await page.click('#agent-save');
  assert.equal(await page.locator('#agent-setup-error').textContent(), 'Paste an API key first.');
  await page.fill('#agent-key', KEY);
  await page.fill('#agent-api', 'https://api.example.com');
  await page.click('#agent-save');
  assert.equal(
    await page.locator('#agent-setup-error').textContent(),
    'https://api.example.com is not allowed: the API must be https://api.anthropic.com or a loopback address (127.0.0.1 or localhost)',
  );
  assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'nothing saved from a refused form');

  // Behind that check, the browser itself holds the page to those APIs (the server's CSP).
  const blocked = await page.evaluate(async () => {
    const seen = new Promise((r) => document.addEventListener('securitypolicyviolation', (e) => r(`${e.effectiveDirective} ${e.blockedURI}`), { once: true }));
    const fetched = await fetch('https://api.example.com/v1/messages', { method: 'POST' }).then(() => 'sent', () => 'refused');
    // Only a bound on a failing run: the event comes with the refusal.
    const none = new Promise((r) => setTimeout(() => r('no CSP violation'), 20_000));
    return `${fetched}: ${await Promise.race([seen, none])}`;
  });
  assert.equal(blocked, 'refused: connect-src https://api.example.com/v1/messages');

  // The explorer is one click away and works: a file created from the console shows in the tree.
  await page.click('#tab-console');
  assert.equal(await page.locator('#console').isVisible(), true);
  assert.equal(await page.locator('#chat').isHidden(), true);
  await page.fill('#tool-input', JSON.stringify({ command: 'create', path: '/memories/by-hand.md', file_text: 'hi' }));
  await page.click('#run');
  await row(page, '/memories/by-hand.md').waitFor();
  assert.equal(await page.locator('#tool-result pre.content').textContent(), 'File created successfully at: /memories/by-hand.md');
  assert.equal(new URL(page.url()).hash, '#console', 'the tab is in the address');
  assert.deepEqual(errors, []);
  await context.close();
});

test('Claude (a loopback fake API) writes memory through the SDK in the page; the tree follows; reload keeps files and key', async () => {
  api.requests.length = 0;
  api.preflights.length = 0;
  const context = await env.browser.newContext();
  const { page, errors } = await open(context, `memory=agent-e2e&api=${encodeURIComponent(apiUrl)}`);
  const keyOrigins = watchKey(page);
  assert.equal(await page.inputValue('#agent-api'), apiUrl);

  await page.fill('#agent-key', KEY);
  await page.click('#agent-save');
  await page.waitForSelector('#chat[data-state="chat"]');
  assert.equal(await page.locator('#agent-summary').textContent(), `claude-sonnet-5-5 · ${apiUrl} · key …${KEY.slice(-4)}`);
  await page.fill('#chat-input', 'Remember my profile and where the memdir project stands.');
  await page.press('#chat-input', 'Enter');
  await page.waitForSelector('#chat[data-turns="1"]');

  // The chat: the user's message, the model's texts and its memory calls, in order.
  const log = await page.locator('#chat-log .msg').evaluateAll((ms) => ms.map((m) => `${m.classList[1]}|${m.textContent}`));
  const calls = (turn) => turn.map(([input]) => `tool|memory.${input.command}${input.path}`);
  assert.deepEqual(inTurnOrder(log), [
    'hint|A new conversation. Claude checks its memory first, so what it saved before (in this browser) carries over.',
    'user|Remember my profile and where the memdir project stands.',
    ...TURNS.flatMap((turn, i) => [`assistant|Turn ${i + 1}.`, ...calls(turn).sort()]),
    `assistant|${FINAL_TEXT}`,
  ]);

  // What the API received: the key in its header, the memory tool, and the exact tool_result blocks.
  assert.equal(api.requests.length, TURNS.length + 1);
  assert.ok(api.preflights.length >= 1, 'the browser sent a CORS preflight');
  for (const r of api.requests) {
    assert.equal(r.url, '/v1/messages');
    // This SDK sends an API key as a bearer token.
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
    assert.equal(r.headers['anthropic-dangerous-direct-browser-access'], 'true');
    assert.ok(r.headers['anthropic-beta'].split(',').includes('context-management-2025-06-27'), r.headers['anthropic-beta']);
    assert.equal(r.params.model, 'claude-sonnet-5-5');
  }
  // The runner opens a message thread with the tools and system prompt, then sends only what is new.
  const first = api.requests[0].params;
  assert.deepEqual(first.tools, [{ type: 'memory_20250818', name: 'memory' }]);
  assert.equal(first.system, MEMORY_SYSTEM_PROMPT);
  assert.deepEqual(first.messages, [{ role: 'user', content: 'Remember my profile and where the memdir project stands.' }]);
  for (let i = 0; i < TURNS.length; i++) {
    const sent = api.requests[i + 1].params.messages.at(-1);
    assert.equal(sent.role, 'user');
    assert.deepEqual(
      sent.content,
      TURNS[i].map(([, content, isError], j) => ({
        type: 'tool_result',
        tool_use_id: `toolu_${i}_${j}`,
        content,
        ...(isError ? { is_error: true } : {}),
      })),
      `turn ${i + 1}`,
    );
  }
  assert.deepEqual([...new Set(keyOrigins)], [apiUrl], 'the key went to the API and nowhere else');

  // The memory holds exactly what the model wrote, and the tree and file view show it.
  assert.deepEqual(await page.evaluate(() => window.memdirExplorer.memory.entries()), FILES);
  await page.waitForFunction(
    (want) => [...document.querySelectorAll('.tree .row')].map((r) => r.title).join(',') === want,
    ['/memories', PROFILE, '/memories/projects', PROJECT].join(','),
  );
  const sizes = await page.locator('.tree .row .size').allTextContents();
  assert.deepEqual(sizes, [
    `${Buffer.byteLength(PROFILE_TEXT) + Buffer.byteLength(FILES[2].content)}B`,
    `${Buffer.byteLength(PROFILE_TEXT)}B`,
    `${Buffer.byteLength(FILES[2].content)}B`,
    `${Buffer.byteLength(FILES[2].content)}B`,
  ]);
  // The file view followed the model to the file it edited last.
  await page.waitForFunction((p) => document.querySelector('.tree .row.selected')?.title === p, PROJECT);
  const lines = await page.locator('.code .line').evaluateAll((ls) => ls.map((l) => `${l.querySelector('.ln').textContent}|${l.querySelector('.lt').textContent}`));
  assert.deepEqual(lines, ['1|Status: testing the browser agent', '2|Next: the Playwright test', '3|']);
  await page.screenshot({ path: join(OUT, 'agent.png') });

  // The console's history has every call the model made, marked as the model's.
  await page.click('#tab-console');
  const history = await page.locator('#history summary').evaluateAll((ss) =>
    ss.map((s) => `${s.querySelector('.dot').classList[1]}|${s.querySelector('.cmd').textContent}|${s.querySelector('.path').textContent}|${s.querySelector('.source')?.textContent ?? ''}`),
  );
  const expected = TURNS.flat().map(([input, , isError]) => `${isError ? 'err' : 'ok'}|${input.command}|${input.path}|model`);
  assert.deepEqual([...history].sort(), [...expected].sort());
  assert.equal(history[0], expected.at(-1), 'newest first');
  await page.click('#tab-chat');

  // The key is in this tab's sessionStorage only: not localStorage, not a cookie.
  assert.equal(await page.evaluate(() => sessionStorage.getItem('memdir-agent:api-key')), KEY);
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  assert.deepEqual(await context.cookies(), []);

  // Reload: the files are in IndexedDB and the key still in this tab's session.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.locator('#chat').getAttribute('data-state'), 'chat');
  assert.equal(await page.locator('#agent-summary').textContent(), `claude-sonnet-5-5 · ${apiUrl} · key …${KEY.slice(-4)}`);
  assert.deepEqual(await treePaths(page), ['/memories', PROFILE, '/memories/projects', PROJECT]);
  assert.deepEqual(await page.evaluate(() => window.memdirExplorer.memory.entries()), FILES);

  // Another tab of the same browser: the same memory, but no key (the key was this tab's).
  const other = await open(context, `memory=agent-e2e&api=${encodeURIComponent(apiUrl)}`);
  assert.equal(await other.page.locator('#chat').getAttribute('data-state'), 'setup');
  assert.equal(await other.page.evaluate(() => sessionStorage.length), 0);
  assert.deepEqual(await treePaths(other.page), ['/memories', PROFILE, '/memories/projects', PROJECT]);

  // Forgetting the key removes it from the tab.
  await page.click('#agent-forget');
  assert.equal(await page.locator('#chat').getAttribute('data-state'), 'setup');
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  assert.deepEqual(errors, []);
  assert.deepEqual(other.errors, []);
  await context.close();
});

test("a refused key is shown as the API's message, not its raw body", async () => {
  // A loopback API that refuses every key, as the real one does, with CORS for the page.
  const refusing = createServer((req, res) => {
    const cors = { 'access-control-allow-origin': req.headers.origin ?? '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'POST, OPTIONS' };
    if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
    req.resume();
    req.on('end', () => {
      res.writeHead(401, { ...cors, 'content-type': 'application/json', 'x-should-retry': 'false' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
    });
  });
  await new Promise((r) => refusing.listen(0, '127.0.0.1', r));
  const context = await env.browser.newContext();
  try {
    const url = `http://127.0.0.1:${refusing.address().port}`;
    const { page, errors } = await open(context, `memory=agent-401&api=${encodeURIComponent(url)}`);
    await page.fill('#agent-key', KEY);
    await page.click('#agent-save');
    await page.fill('#chat-input', 'hello');
    await page.click('#chat-send');
    await page.waitForSelector('#chat[data-turns="1"]');
    assert.equal(
      await page.locator('#chat-log .msg.error').textContent(),
      'The API key was refused (401 authentication_error): invalid x-api-key',
    );
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await new Promise((r) => refusing.close(r));
  }
});

test('an API error is shown in the chat, the memory untouched, and the chat ready again', async () => {
  const context = await env.browser.newContext();
  const { page, errors } = await open(context, 'memory=agent-error&api=http%3A%2F%2F127.0.0.1%3A9');
  await page.fill('#agent-key', KEY);
  await page.click('#agent-save');
  await page.fill('#chat-input', 'hello');
  await page.click('#chat-send');
  await page.waitForSelector('#chat[data-turns="1"]');
  assert.equal(await page.locator('#chat-log .msg.error').textContent(), 'The API call failed: Connection error.');
  assert.deepEqual(await page.evaluate(() => window.memdirExplorer.memory.entries()), []);
  assert.equal(await page.locator('#chat-send').textContent(), 'Send');
  assert.equal(await page.locator('#chat-input').isEnabled(), true);
  assert.deepEqual(errors, []);
  await context.close();
});
