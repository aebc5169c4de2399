// The example memory service over HTTP in workerd: credentials, bad requests,
// isolation between users, concurrent edits, and data surviving a restart.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { MAX_TOKEN_LIFETIME_SECONDS, mintToken, TOKEN_LIFETIME_SECONDS, verifyToken } from '../../examples/worker/src/auth.js';
import { client, entriesOf, plain, useService } from './client.js';
import { API_KEYS, AUTH_SECRET, start } from './mf.js';

const { mf, c } = useService();
const WORKER = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'worker');

const VIEW = JSON.stringify({ command: 'view', path: '/memories/note.md' });
const CREATE = JSON.stringify({ command: 'create', path: '/memories/new.md', file_text: 'should not exist' });

/** A user whose tree is one note, and an assertion that a request left it alone. */
async function seeded(user) {
  const tree = entriesOf({ files: { '/memories/note.md': 'hello' } });
  await c.setup(user, tree);
  return async () => {
    const state = await c.state(user);
    assert.equal(state.ops, 0, 'the store was touched');
    assert.deepEqual(plain(state.entries), tree);
  };
}

async function post(headers, body = CREATE) {
  const r = await c.raw('/memory', { method: 'POST', headers, body });
  assert.match(r.headers.get('content-type'), /^application\/json/);
  return { status: r.status, headers: r.headers, body: await r.json() };
}

describe('credentials', () => {
  test('a request without credentials gets 401 and changes nothing', async () => {
    const unchanged = await seeded('alice-nocred');
    const r = await post({ 'content-type': 'application/json' });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: 'unauthorized', message: 'Send the credentials: an Authorization: Bearer <token> header.' });
    assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="memdir"');
    const basic = await post({ 'content-type': 'application/json', authorization: 'Basic YWxpY2U6cHc=' });
    assert.equal(basic.status, 401);
    assert.equal(basic.body.error, 'unauthorized');
    await unchanged();
  });

  test('forged tokens get 401 and change nothing', async () => {
    const unchanged = await seeded('alice-forged');
    const good = await mintToken(AUTH_SECRET, 'alice-forged');
    const [id, exp, sig] = good.split('.');
    const bob = await c.token('bob-forged');
    // The format before tokens carried an expiry: the user id alone, signed.
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(AUTH_SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const unending = Buffer.from(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode('alice-forged'))).toString('base64url');
    const forged = {
      'another secret': await mintToken('some-other-secret-that-is-long-enough-000', 'alice-forged'),
      "bob's signature": `${id}.${exp}.${bob.split('.')[2]}`,
      'flipped signature': `${id}.${exp}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`,
      'expiry moved a year on': `${id}.${Number(exp) + 365 * 86400}.${sig}`,
      'expiry with a leading zero': `${id}.0${exp}.${sig}`,
      'no expiry (the old, unending format)': `${id}.${unending}`,
      'no signature': `${id}.${exp}`,
      'empty signature': `${id}.${exp}.`,
      'padded base64': `${id}=.${exp}.${sig}`,
      garbage: 'not-a-token',
      'four parts': `${good}.x`,
    };
    for (const [what, token] of Object.entries(forged)) {
      const r = await post({ 'content-type': 'application/json', authorization: `Bearer ${token}` });
      assert.equal(r.status, 401, what);
      assert.deepEqual(r.body, { error: 'invalid_token', message: 'The bearer token is not valid.' }, what);
      assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="memdir", error="invalid_token"', what);
    }
    await unchanged();
  });

  test('an expired token gets 401 saying so and changes nothing', async () => {
    const unchanged = await seeded('alice-expired');
    // Minted two days ago for the default lifetime (one day): its end has passed.
    const stale = await mintToken(AUTH_SECRET, 'alice-expired', { now: Date.now() - 2 * 86400 * 1000 });
    const r = await post({ 'content-type': 'application/json', authorization: `Bearer ${stale}` });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: 'invalid_token', message: 'The bearer token has expired: mint a new one.' });
    assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="memdir", error="invalid_token", error_description="The token expired"');
    await unchanged();
    // The same user with a token minted now is served.
    const fresh = await post({ 'content-type': 'application/json', authorization: `Bearer ${await mintToken(AUTH_SECRET, 'alice-expired')}` }, VIEW);
    assert.equal(fresh.status, 200);
    assert.deepEqual(fresh.body, { content: "Here's the content of /memories/note.md with line numbers:\n     1\thello", is_error: false });
  });

  test('a token runs one day by default, ends at its expiry second, and none is minted for longer than 30 days', async () => {
    const now = 1_700_000_000_250;
    const token = await mintToken(AUTH_SECRET, 'alice', { now });
    assert.equal(TOKEN_LIFETIME_SECONDS, 86_400);
    assert.equal(MAX_TOKEN_LIFETIME_SECONDS, 2_592_000);
    assert.equal(token.split('.').slice(0, 2).join('.'), 'YWxpY2U.1700086400');
    assert.deepEqual(await verifyToken(AUTH_SECRET, token, 1_700_086_399_999), { userId: 'alice' });
    assert.deepEqual(await verifyToken(AUTH_SECRET, token, 1_700_086_400_000), { expired: true });
    const short = await mintToken(AUTH_SECRET, 'alice', { now, lifetimeSeconds: 60 });
    assert.equal(short.split('.')[1], '1700000060');
    const longest = await mintToken(AUTH_SECRET, 'alice', { now, lifetimeSeconds: 2_592_000 });
    assert.equal(longest.split('.')[1], '1702592000');
    for (const lifetimeSeconds of [0, -1, 2_592_001, 1.5, Infinity]) {
      await assert.rejects(mintToken(AUTH_SECRET, 'alice', { now, lifetimeSeconds }), {
        name: 'RangeError',
        message: "a token's lifetime must be 1 to 2592000 seconds",
      });
    }
  });

  test('mint-token.mjs mints for the lifetime it is given and refuses one past 30 days', async () => {
    const mint = (...args) =>
      spawnSync(process.execPath, [join(WORKER, 'mint-token.mjs'), ...args], { env: { ...process.env, AUTH_SECRET }, encoding: 'utf8' });
    const before = Date.now();
    const made = mint('alice', '60');
    assert.equal(made.status, 0, made.stderr);
    const token = made.stdout.trim();
    assert.deepEqual(await verifyToken(AUTH_SECRET, token, before), { userId: 'alice' });
    assert.deepEqual(await verifyToken(AUTH_SECRET, token, Date.now() + 61_000), { expired: true });
    const usage =
      'usage: AUTH_SECRET=<at least 32 characters> node mint-token.mjs <user-id> [lifetime: 1 to 2592000 seconds, default 86400]\n';
    for (const args of [['alice', '0'], ['alice', '2592001'], ['alice', '1h'], ['alice', '60', 'extra'], []]) {
      const refused = mint(...args);
      assert.deepEqual([refused.status, refused.stdout, refused.stderr], [2, '', usage], args.join(' '));
    }
  });

  test('each token reaches only its own user', async () => {
    await c.setup('alice', entriesOf({ files: { '/memories/secret.md': 'alice only' } }));
    await c.setup('bob', []);
    const alice = await c.call('alice', { command: 'view', path: '/memories/secret.md' });
    assert.equal(alice.status, 200);
    assert.equal(alice.body.content, "Here's the content of /memories/secret.md with line numbers:\n     1\talice only");
    const bob = await c.call('bob', { command: 'view', path: '/memories/secret.md' });
    assert.equal(bob.status, 422);
    assert.deepEqual(bob.body, {
      content: 'Error: The path /memories/secret.md does not exist. Please provide a valid path.',
      is_error: true,
    });
    const bobCreates = await c.call('bob', { command: 'create', path: '/memories/mine.md', file_text: 'bob' });
    assert.equal(bobCreates.status, 200);
    assert.deepEqual(plain((await c.state('alice')).entries), entriesOf({ files: { '/memories/secret.md': 'alice only' } }));
    assert.deepEqual(plain((await c.state('bob')).entries), entriesOf({ files: { '/memories/mine.md': 'bob' } }));
  });

  test("an object refuses a call made with another user's id", async () => {
    const r = await c.test('wrong-object', { user: 'bob', claimed: 'alice' });
    assert.deepEqual(r, { refused: "This request is for another user's memory." });
  });
});

describe('bad requests', () => {
  const auth = async (user) => ({ authorization: `Bearer ${await c.token(user)}` });

  test('a wrong content type gets 415 and changes nothing', async () => {
    const unchanged = await seeded('ct');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', undefined]) {
      const headers = { ...(await auth('ct')), ...(type ? { 'content-type': type } : {}) };
      const r = await post(headers);
      assert.equal(r.status, 415, String(type));
      assert.deepEqual(r.body, { error: 'unsupported_media_type', message: 'Send the tool input with Content-Type: application/json.' });
    }
    await unchanged();
    const ok = await post({ ...(await auth('ct')), 'content-type': 'Application/JSON; charset=UTF-8' }, VIEW);
    assert.equal(ok.status, 200);
  });

  test('malformed JSON gets 422 with the engine message and changes nothing', async () => {
    const unchanged = await seeded('malformed');
    const r = await c.call('malformed', '{"command": "create", "path": ');
    assert.equal(r.status, 422);
    assert.deepEqual(r.body, { content: 'Error: Invalid tool input: not valid JSON', is_error: true });
    const empty = await c.call('malformed', '');
    assert.deepEqual(empty.body, { content: 'Error: Invalid tool input: not valid JSON', is_error: true });
    await unchanged();
  });

  test('a file over the per-file limit gets 422 naming the limit, nothing written', async () => {
    const unchanged = await seeded('big-file');
    const r = await c.call('big-file', { command: 'create', path: '/memories/big.txt', file_text: 'x'.repeat(102_401) });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body, {
      content:
        'Error: Cannot write /memories/big.txt: the content would be 102,401 bytes, over the limit of 102,400 bytes per file. Nothing was written.',
      is_error: true,
    });
    await unchanged();
  });

  test('a body over the request limit gets 413, nothing written', async () => {
    const unchanged = await seeded('big-body');
    const body = JSON.stringify({ command: 'create', path: '/memories/huge.txt', file_text: 'y'.repeat(2 * 1024 * 1024) });
    const r = await post({ ...(await auth('big-body')), 'content-type': 'application/json' }, body);
    assert.equal(r.status, 413);
    assert.deepEqual(r.body, { error: 'body_too_large', message: 'The request body is over the limit of 2,097,152 bytes.' });
    await unchanged();
  });

  test('a body that is not UTF-8 gets 400, nothing written', async () => {
    const unchanged = await seeded('latin1');
    const body = Buffer.concat([Buffer.from('{"command":"create","path":"/memories/a","file_text":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const r = await post({ ...(await auth('latin1')), 'content-type': 'application/json' }, body);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { error: 'invalid_encoding', message: 'The request body is not valid UTF-8.' });
    await unchanged();
  });

  test('other routes and methods get 404 and 405', async () => {
    const get = await c.raw('/memory', { method: 'GET', headers: await auth('x') });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    assert.deepEqual(await get.json(), { error: 'method_not_allowed', message: 'Use POST /memory with a memory tool input as the JSON body.' });
    const other = await c.raw('/memories', { method: 'POST', headers: await auth('x') });
    assert.equal(other.status, 404);
    assert.deepEqual(await other.json(), { error: 'not_found', message: 'Not found: this service answers POST /memory.' });
    // Under /v1 every path is the Memory Stores API's, and so is its 404.
    const api = await c.raw('/v1/messages', { method: 'POST', headers: { 'x-api-key': API_KEYS[0] } });
    assert.equal(api.status, 404);
    assert.deepEqual(await api.json(), { type: 'error', error: { type: 'not_found_error', message: 'No such route: the Memory Stores API serves /v1/memory_stores and the routes beneath it.' } });
  });
});

const EDITED = { content: 'The file /memories/log.md has been edited.', is_error: false };
const BUSY = {
  content: 'Error: The memory directory is busy: other writers kept changing it while this command ran; nothing was changed. Try again.',
  is_error: true,
};

/** 50 inserts into one file at once; what each answered, the file's lines after, and the lost swaps. */
async function fiftyEdits(user, interleave) {
  await c.setup(user, entriesOf({ files: { '/memories/log.md': 'start' } }), undefined, interleave);
  const edits = Array.from({ length: 50 }, (_, i) => `edit ${i}`);
  const answers = await Promise.all(
    edits.map((text) => c.call(user, { command: 'insert', path: '/memories/log.md', insert_line: 1, insert_text: text })),
  );
  const state = await c.state(user);
  const [log] = plain(state.entries);
  const [first, ...rest] = log.content.split('\n');
  assert.equal(first, 'start');
  return { edits, answers, lines: rest.sort(), lost: state.lost };
}

test('50 concurrent edits of one file all land', async () => {
  // Workerd runs them one after another in the user's object (input gates hold
  // across storage calls), so none has to retry.
  const { edits, answers, lines, lost } = await fiftyEdits('busy', false);
  for (const a of answers) assert.deepEqual(a.body, EDITED);
  assert.deepEqual(lines, edits.sort());
  assert.equal(lost, 0, 'a compare-and-swap lost a race');
});

test('50 interleaved edits of one file: each lands whole or is refused whole, none lost', async (t) => {
  // Four engines share the store (as several isolates would) and it yields to the
  // event loop before each operation, so the commands really race for the head: a
  // lost race is retried from the new head, and a command that keeps losing is
  // refused with nothing written.
  const { edits, answers, lines, lost } = await fiftyEdits('interleaved', true);
  // Without a lost race this test would prove nothing about retries.
  assert.ok(lost > 0, 'no compare-and-swap lost a race: the edits did not contend');
  const landed = edits.filter((_, i) => {
    assert.ok([EDITED.content, BUSY.content].includes(answers[i].body.content), answers[i].body.content);
    return answers[i].body.content === EDITED.content;
  });
  assert.ok(landed.length > 0, 'no edit landed');
  assert.deepEqual(lines, landed.sort());
  t.diagnostic(`${landed.length} of 50 edits landed, ${50 - landed.length} refused busy; ${lost} compare-and-swaps lost a race`);
});

test('memories survive a restart with persistence on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'memdir-workerd-'));
  try {
    const first = start({ persist: dir });
    const a = client(first);
    const made = await a.call('persistent', { command: 'create', path: '/memories/keep.md', file_text: 'still here' });
    assert.equal(made.status, 200);
    await first.dispose();
    const second = start({ persist: dir });
    try {
      const b = client(second);
      const r = await b.call('persistent', { command: 'view', path: '/memories/keep.md' });
      assert.deepEqual(r.body, { content: "Here's the content of /memories/keep.md with line numbers:\n     1\tstill here", is_error: false });
    } finally {
      await second.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
