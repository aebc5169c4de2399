// The memory explorer: a person's view of the same /memories an agent in this
// origin uses. Everything it shows comes from the engine's own answers (view output
// parsed by view-text.js), and everything it changes goes through the six tool
// commands, so what you see here is what the model sees. Beside it, the chat
// (agent.js) lets Claude use this memory; the tree and file view follow its writes.
import { createConsole } from './console.js';
import { ask } from './dialogs.js';
import { createHistory } from './history.js';
import { createSync } from './sync.js';
import { renderHits, setModes } from './search.js';
import { renderTree } from './tree.js';
import {
  basename,
  parent,
  parseDirView,
  parseFileView,
} from './view-text.js';

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
};

const ROOT = '/memories';
const MUTATING = new Set(['create', 'str_replace', 'insert', 'delete', 'rename']);
const memoryName = new URLSearchParams(location.search).get('memory') || 'default';

const state = {
  nodes: new Map(), // path -> { path, size, dir, children?: string[] } (children unknown: undefined)
  expanded: new Set([ROOT]),
  selected: ROOT,
  mode: 'lines', // file view: 'lines' | 'raw' | 'history' (files only)
  editing: null, // { path, original } while the editor is open
  lastView: null, // the engine's text for the selected path
  query: '', // the search box's query while its hits are shown
};

// ------------------------------------------------------------------ messages

function banner(kind, html) {
  const b = $('banner');
  b.className = `banner ${kind}`;
  b.innerHTML = html;
  b.hidden = false;
}

function clearStorageBanner() {
  if ($('banner').dataset.storage) {
    $('banner').hidden = true;
    delete $('banner').dataset.storage;
  }
}

/** Turns the engine's storage failures (by kind) into a banner a person can act on. */
function noticeStorage(result) {
  if (result.kind === 'storage_unavailable') {
    banner(
      'error',
      '<strong>IndexedDB is unavailable here.</strong> The browser refused storage for this page ' +
        '(private browsing, site data blocked, or another tab holding an older version of the database open). ' +
        'Nothing can be saved until it is available.',
    );
    $('banner').dataset.storage = 'unavailable';
  } else if (result.kind === 'storage_full') {
    banner(
      'warn',
      '<strong>Storage is full.</strong> The browser\'s quota for this site is used up; the last command ' +
        'changed nothing. Delete files or free space in the browser, then try again.',
    );
    $('banner').dataset.storage = 'full';
  }
}

function status(text) {
  $('status').replaceChildren(
    el('span', { className: 'status-item' }, `IndexedDB · memdir:${memoryName}`),
    el('span', { className: 'status-item' }, text),
  );
}

// ------------------------------------------------------------------ the engine

let memory;
let channel;
let consoleUi;
let fileHistory;

const MODES = {
  lines: ['View', 'Rendered from the engine\'s view output'],
  raw: ['Raw', 'The exact text the model sees'],
  history: ['History', 'Every version of this file, from the Memory Stores API'],
};

async function exec(input) {
  const t0 = performance.now();
  // Text from the console goes in as the model's JSON would; page actions as values.
  const result = typeof input === 'string' ? await memory.executeJson(input) : await memory.execute(input);
  const ms = performance.now() - t0;
  noticeStorage(result);
  if (!result.is_error) clearStorageBanner();
  return { result, ms };
}

/** A command a person asked for: logged in the console, and the page refreshed. */
async function command(input, source) {
  const { result, ms } = await exec(input);
  consoleUi.record(input, result, ms, source);
  let parsed = input;
  if (typeof input === 'string') {
    try {
      parsed = JSON.parse(input);
    } catch {
      parsed = null;
    }
  }
  if (!result.is_error && parsed && MUTATING.has(parsed.command)) {
    channel?.postMessage('changed');
    followRename(parsed);
    await refresh();
  }
  status(`${parsed?.command ?? 'input'} · ${result.is_error ? 'error' : 'ok'} · ${ms.toFixed(1)} ms`);
  return result;
}

/**
 * A memory tool call the model made through the SDK's runner (agent.js): logged in
 * the console's history, and the tree and file view follow it while it writes.
 */
async function modelCall(input, result, ms) {
  noticeStorage(result);
  consoleUi.record(input, result, ms, 'model');
  if (!result.is_error && input && MUTATING.has(input.command)) {
    channel?.postMessage('changed');
    if (input.command === 'rename' || input.command === 'create') followRename(input);
    else if (input.command !== 'delete' && typeof input.path === 'string') {
      state.selected = input.path; // an edited file: show it changing
      revealSelected();
    }
    if (!state.editing) await refresh();
  }
  status(`model: ${input?.command ?? 'input'} · ${result.is_error ? 'error' : 'ok'} · ${ms.toFixed(1)} ms`);
}

/** After a rename or create, show the moved or new file where it now is. */
function followRename(input) {
  if (input.command === 'rename' && (state.selected === input.old_path || state.selected.startsWith(`${input.old_path}/`))) {
    state.selected = input.new_path + state.selected.slice(input.old_path.length);
  } else if (input.command === 'create') {
    state.selected = input.path;
  } else {
    return;
  }
  revealSelected();
}

function revealSelected() {
  for (let p = parent(state.selected); p.length > ROOT.length; p = parent(p)) state.expanded.add(p);
  consoleUi.follow(state.selected);
}

// ------------------------------------------------------------------ tree

/** Loads one directory's listing (two levels) into the node map. */
async function loadDir(path) {
  const { result } = await exec({ command: 'view', path });
  if (result.is_error) return false;
  const view = parseDirView(result.content);
  if (!view) return false;
  state.nodes.set(path, { path, dir: true, size: view.size, children: [] });
  for (const e of view.entries) {
    // Children of a listed child are listed too; a grandchild directory's own
    // children are beyond the two levels, so unknown until it is expanded.
    const known = parent(e.path) === path ? [] : state.nodes.get(e.path)?.children;
    state.nodes.set(e.path, { path: e.path, size: e.size, dir: e.dir, children: e.dir ? known : undefined });
  }
  for (const e of view.entries) state.nodes.get(parent(e.path))?.children?.push(e.path);
  return true;
}

// Refreshes run one after another: the model's calls in one turn run concurrently,
// and two redraws filling one node map at once would mix their listings.
let refreshing = Promise.resolve();
function refresh() {
  const next = refreshing.then(redraw);
  refreshing = next.catch(() => {});
  return next;
}

async function redraw() {
  state.nodes = new Map();
  const ok = await loadDir(ROOT);
  if (!ok) {
    drawTree();
    await showSelected();
    return;
  }
  const top = state.nodes.get(ROOT)?.children ?? [];
  if (!state.opened && top.length) {
    // The first time there is something: open the top level so it is in view.
    state.opened = true;
    for (const p of top) if (state.nodes.get(p)?.dir) state.expanded.add(p);
  }
  const pending = [...state.expanded].sort((a, b) => a.length - b.length);
  for (const p of pending) {
    const n = state.nodes.get(p);
    if (n?.dir && n.children === undefined) await loadDir(p);
  }
  if (!state.nodes.has(state.selected)) {
    let p = state.selected;
    while (p !== ROOT && !state.nodes.has(p)) p = parent(p);
    state.selected = p;
  }
  $('total-size').textContent = state.nodes.get(ROOT)?.size ?? '';
  drawTree();
  await showSelected();
  // A write may change what a search finds: its hits follow, as the tree does.
  if (state.query) await search(state.query);
}

// ------------------------------------------------------------------ search

/**
 * Shows the engine's ranked hits for `query` in place of the tree (the tree again
 * when it is empty); a query the engine refuses shows its words.
 */
async function search(query) {
  state.query = query.trim() ? query : '';
  $('hits').hidden = !state.query;
  $('tree').hidden = Boolean(state.query);
  if (!state.query) return;
  const mode = $('search-mode').value;
  let answer;
  try {
    answer = { query, mode, hits: await memory.search(query, { mode }) };
  } catch (e) {
    answer = { query, mode, error: e.message };
  }
  // A newer query was typed meanwhile: its answer is the one to show.
  if (state.query !== query) return;
  renderHits($('hits'), answer, openHit);
  status(answer.error ? 'search refused' : `search · ${answer.hits.length} found`);
}

/** Opens a hit's file, and marks and scrolls to the line clicked, if one was. */
async function openHit(path, line) {
  state.mode = 'lines';
  await select(path, { reveal: true });
  if (line === null) return;
  const row = document.querySelectorAll('#view-body .code .line')[line - 1];
  if (!row) return;
  row.classList.add('found');
  row.scrollIntoView({ block: 'center' });
}

/** Shows `path`; `reveal` opens its ancestors in the tree (they may need loading). */
async function select(path, { reveal = false } = {}) {
  state.selected = path;
  state.editing = null;
  consoleUi?.follow(path);
  if (reveal) {
    for (let p = parent(path); p.length > ROOT.length; p = parent(p)) state.expanded.add(p);
    await refresh();
    return;
  }
  drawTree();
  await showSelected();
}

function drawTree() {
  renderTree($('tree'), state, {
    select: (path) => select(path),
    toggle: async (path) => {
      if (state.expanded.has(path)) state.expanded.delete(path);
      else {
        state.expanded.add(path);
        if (state.nodes.get(path)?.children === undefined) await loadDir(path);
      }
      drawTree();
    },
  });
}

// ------------------------------------------------------------------ the view panel

function actionButton(label, onClick, cls = '') {
  return el('button', { type: 'button', className: cls, textContent: label, onclick: onClick });
}

function crumbs(path) {
  const parts = path.split('/').filter(Boolean);
  const out = el('span', { className: 'crumbs' });
  parts.forEach((part, i) => {
    const p = `/${parts.slice(0, i + 1).join('/')}`;
    if (i) out.append(el('span', { className: 'sep' }, '/'));
    out.append(
      el('a', {
        href: '#',
        textContent: i === 0 ? '/memories' : part,
        onclick: (e) => {
          e.preventDefault();
          select(p);
        },
      }),
    );
  });
  return out;
}

async function showSelected() {
  const path = state.selected;
  const node = state.nodes.get(path);
  const head = $('view-head');
  const body = $('view-body');
  const { result } = await exec({ command: 'view', path });
  state.lastView = result.content;
  if (result.is_error) {
    head.replaceChildren(crumbs(path));
    body.replaceChildren(el('div', { className: 'empty error-text' }, result.content));
    return;
  }
  const isDir = node?.dir ?? path === ROOT;
  const mode = isDir && state.mode === 'history' ? 'lines' : state.mode;
  const modes = el(
    'div',
    { className: 'segmented small' },
    ...Object.keys(MODES).filter((m) => !isDir || m !== 'history').map((m) =>
      el('button', {
        type: 'button',
        textContent: MODES[m][0],
        title: MODES[m][1],
        className: mode === m ? 'on' : '',
        onclick: () => {
          state.mode = m;
          showSelected();
        },
      }),
    ),
  );
  const actions = el('div', { className: 'actions' }, modes);
  if (isDir) {
    actions.append(actionButton('New file here', () => newFile(path)));
  } else {
    actions.append(actionButton('Edit', () => edit(path)));
  }
  if (path !== ROOT) {
    actions.append(actionButton('Rename', () => rename(path)), actionButton('Delete', () => remove(path), 'danger'));
  }
  head.replaceChildren(
    crumbs(path),
    el('span', { className: 'meta' }, meta(node, isDir, result.content)),
    actions,
  );
  if (mode === 'raw') {
    body.replaceChildren(el('pre', { className: 'raw' }, result.content));
    return;
  }
  if (mode === 'history') {
    await fileHistory.render(body, path);
    return;
  }
  if (isDir) body.replaceChildren(dirListing(result.content));
  else body.replaceChildren(fileLines(result.content));
}

function meta(node, isDir, text) {
  if (!node?.size) return '';
  if (isDir) return node.size;
  const lines = parseFileView(text)?.lines.length ?? 0;
  return `${node.size} · ${lines} line${lines === 1 ? '' : 's'}`;
}

function dirListing(text) {
  const view = parseDirView(text);
  if (!view) return el('pre', { className: 'raw' }, text);
  if (view.entries.length === 0) {
    return el('div', { className: 'empty' }, 'This directory is empty. ', el('span', { className: 'muted' }, 'Create a file with “New file here”.'));
  }
  const rows = view.entries.map((e) => {
    const depth = e.path.slice(view.path.length + 1).split('/').length - 1;
    return el(
      'tr',
      {
        className: 'listing-row',
        onclick: () => select(e.path, { reveal: true }),
      },
      el('td', { className: 'size' }, e.size),
      el(
        'td',
        { className: 'name', style: `padding-left:${12 + depth * 18}px` },
        el('span', { className: 'entry' }, el('span', { className: e.dir ? 'icon-dir' : 'icon-file' }), basename(e.path) + (e.dir ? '/' : '')),
      ),
    );
  });
  const table = el('table', { className: 'listing' }, el('tbody', {}, ...rows));
  return el('div', {}, table, view.notice ? el('div', { className: 'notice' }, view.notice) : null);
}

function fileLines(text) {
  const view = parseFileView(text);
  if (!view) return el('pre', { className: 'raw' }, text);
  const code = el('div', { className: 'code' });
  for (const { n, text: line } of view.lines) {
    code.append(el('div', { className: 'line' }, el('span', { className: 'ln' }, String(n)), el('span', { className: 'lt' }, line)));
  }
  return el('div', {}, code, view.notice ? el('div', { className: 'notice' }, view.notice) : null);
}

// ------------------------------------------------------------------ page actions (all via commands)

async function newFile(dir = ROOT) {
  const base = state.nodes.get(state.selected)?.dir ? state.selected : dir;
  const values = await ask({
    title: 'New file',
    fields: [
      { name: 'path', label: 'Path', value: `${base === ROOT ? ROOT : base}/`, mono: true },
      { name: 'file_text', label: 'Content', textarea: true, value: '' },
    ],
    submit: 'Create',
  });
  if (!values) return;
  await command({ command: 'create', path: values.path, file_text: values.file_text }, 'page');
}

async function contentOf(path) {
  const entries = await memory.entries();
  return entries.find((e) => e.path === path)?.content;
}

async function edit(path) {
  const original = await contentOf(path);
  if (original === undefined) return;
  state.editing = { path, original };
  const area = el('textarea', { className: 'editor', value: original, spellcheck: false });
  const save = async () => {
    const next = area.value;
    state.editing = null;
    if (next === original) return showSelected();
    // One command when possible: replace the whole old text (unique by definition).
    // An empty file has nothing to replace, so its text goes in with insert.
    if (original !== '') {
      await command({ command: 'str_replace', path, old_str: original, new_str: next }, 'page');
    } else {
      const r = await command({ command: 'insert', path, insert_line: 0, insert_text: next }, 'page');
      // insert adds a line break after the text; take it back off if it was not typed.
      if (!r.is_error && !next.endsWith('\n')) {
        await command({ command: 'str_replace', path, old_str: `${next}\n`, new_str: next }, 'page');
      }
    }
  };
  $('view-head').replaceChildren(
    crumbs(path),
    el('span', { className: 'meta' }, 'editing'),
    el(
      'div',
      { className: 'actions' },
      actionButton('Cancel', () => {
        state.editing = null;
        showSelected();
      }),
      actionButton('Save', save, 'primary'),
    ),
  );
  area.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 's') {
      e.preventDefault();
      save();
    }
  });
  $('view-body').replaceChildren(area);
  area.focus();
}

async function rename(path) {
  const values = await ask({
    title: `Rename ${basename(path)}`,
    fields: [{ name: 'new_path', label: 'New path', value: path, mono: true }],
    submit: 'Rename',
  });
  if (!values || values.new_path === path) return;
  await command({ command: 'rename', old_path: path, new_path: values.new_path }, 'page');
}

async function remove(path) {
  const isDir = state.nodes.get(path)?.dir;
  const values = await ask({
    title: `Delete ${basename(path)}?`,
    text: isDir ? `${path} and everything in it will be deleted.` : `${path} will be deleted.`,
    submit: 'Delete',
    danger: true,
  });
  if (!values) return;
  await command({ command: 'delete', path }, 'page');
}

// ------------------------------------------------------------------ export / import

async function exportJson() {
  let entries;
  try {
    entries = await memory.entries();
  } catch (e) {
    consoleUi.note('export', `Export failed: ${e.message}`, true);
    return;
  }
  const doc = { format: 'memdir-export', version: 1, memory: memoryName, exported_at: new Date().toISOString(), entries };
  const blob = new Blob([`${JSON.stringify(doc, null, 2)}\n`], { type: 'application/json' });
  const a = el('a', { href: URL.createObjectURL(blob), download: `memdir-${memoryName}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  const files = entries.filter((e) => e.content !== undefined).length;
  consoleUi.note('export', `Exported ${files} file${files === 1 ? '' : 's'} and ${entries.length - files} director${entries.length - files === 1 ? 'y' : 'ies'} to memdir-${memoryName}.json`);
}

async function importJson(file) {
  let entries;
  try {
    const doc = JSON.parse(await file.text());
    entries = Array.isArray(doc) ? doc : doc?.entries;
    if (!Array.isArray(entries)) throw new Error('no entries');
  } catch {
    consoleUi.note('import', `${file.name} is not a memdir export: expected {"entries": [{"path", "content"?}]}`, true);
    return;
  }
  const ok = await ask({
    title: 'Replace the whole memory?',
    text: `Everything in memory “${memoryName}” will be replaced by the ${entries.length} entries of ${file.name}, in one commit.`,
    submit: 'Replace',
    danger: true,
  });
  if (!ok) return;
  try {
    await memory.import(entries);
    consoleUi.note('import', `Imported ${entries.length} entries from ${file.name}`);
    channel?.postMessage('changed');
    state.selected = ROOT;
    await refresh();
  } catch (e) {
    consoleUi.note('import', `Import refused, nothing changed: ${e.message}`, true);
  }
}

// ------------------------------------------------------------------ tabs: chat, console

function showTab(name) {
  const tab = name === 'console' ? 'console' : 'chat';
  for (const b of document.querySelectorAll('[role="tab"][data-tab]')) {
    const on = b.dataset.tab === tab;
    b.classList.toggle('on', on);
    b.setAttribute('aria-selected', String(on));
    $(b.dataset.tab).hidden = !on;
  }
  // The tab is in the address (#console), so a link or a reload opens it.
  history.replaceState(null, '', `${location.pathname}${location.search}${tab === 'console' ? '#console' : ''}`);
}

async function startAgent(memdir) {
  try {
    const agent = await import('./agent.js');
    await agent.startAgent($('chat'), {
      memdir,
      memoryName,
      onToolCall: modelCall,
      reveal: (path) => select(path, { reveal: true }),
      showConsole: () => showTab('console'),
    });
  } catch (e) {
    $('chat').replaceChildren(el('div', { className: 'empty error-text' }, `The chat could not start: ${e.message}`));
  }
}

// ------------------------------------------------------------------ start

async function listMemories() {
  const list = $('memory-names');
  try {
    const dbs = (await indexedDB.databases?.()) ?? [];
    list.replaceChildren(
      ...dbs
        .map((d) => d.name ?? '')
        .filter((n) => n.startsWith('memdir:'))
        .map((n) => el('option', { value: n.slice('memdir:'.length) })),
    );
  } catch {
    // Listing is a convenience; a browser without databases() still works.
  }
}

async function start() {
  $('memory-name').value = memoryName;
  $('store-info').textContent = `IndexedDB · memdir:${memoryName}`;
  document.title = `${memoryName} · memdir`;
  for (const b of document.querySelectorAll('[role="tab"][data-tab]')) b.onclick = () => showTab(b.dataset.tab);
  showTab(location.hash === '#console' ? 'console' : 'chat');
  $('memory-picker').addEventListener('submit', (e) => {
    e.preventDefault();
    const name = $('memory-name').value.trim();
    if (name && name !== memoryName) location.search = `?memory=${encodeURIComponent(name)}`;
  });
  $('memory-name').addEventListener('change', () => $('memory-picker').requestSubmit());

  let memdir;
  try {
    memdir = await import('../js/browser.js');
  } catch {
    banner('error', '<strong>The memdir package is not built.</strong> Run <code>npm start</code> (it builds first) or <code>npm run build</code>, then reload.');
    return;
  }
  if (typeof indexedDB === 'undefined' || indexedDB === null) {
    banner('error', '<strong>IndexedDB is unavailable here.</strong> This browser context has no IndexedDB (private browsing or storage disabled), so a memory cannot be kept.');
  }
  // A page has no embedder of its own (memdir embeds nothing itself): one lent
  // to it before it loads (an extension, a page embedding the explorer, a test)
  // is used; without one the explorer searches by words only and says why.
  const embedder = globalThis.memdirExplorerEmbedder ?? undefined;
  try {
    memory = await memdir.openMemory({ store: memdir.indexedDbStore(memoryName), actor: 'explorer', embedder });
  } catch (e) {
    banner('error', `<strong>This memory cannot be opened.</strong> ${e.message.replace(/[<>&]/g, '')}`);
    return;
  }
  window.memdirExplorer = { memory, refresh }; // for the console of the browser's devtools
  // A restore or a redaction changes the memory outside the tool's commands: tell
  // other tabs and redraw, as a command would.
  fileHistory = createHistory({
    memory,
    changed: () => {
      channel?.postMessage('changed');
      return refresh();
    },
  });

  consoleUi = createConsole($('console'), {
    run: (text) => command(text, 'console'),
    selection: () => state.selected,
  });

  createSync({
    memory,
    name: memoryName,
    button: $('sync'),
    note: (text, isError) => consoleUi.note('sync', text, isError),
    changed: () => {
      channel?.postMessage('changed');
      return refresh();
    },
  });
  // openMemory has checked the embedder: the memory has one exactly when it was lent.
  setModes($('search-mode'), $('search-mode-note'), embedder !== undefined);
  $('search-mode').addEventListener('change', () => {
    if (state.query) search(state.query);
  });
  $('search').addEventListener('submit', (e) => {
    e.preventDefault();
    search($('search-query').value);
  });
  // Cleared (its × or emptied): the tree again.
  $('search-query').addEventListener('input', (e) => {
    if (!e.target.value.trim()) search('');
  });
  $('new-file').onclick = () => newFile(ROOT);
  $('refresh').onclick = () => refresh();
  $('export').onclick = exportJson;
  $('import').onclick = () => $('import-file').click();
  $('import-file').onchange = async (e) => {
    const [file] = e.target.files;
    e.target.value = '';
    if (file) await importJson(file);
  };
  try {
    channel = new BroadcastChannel(`memdir:${memoryName}`);
    channel.onmessage = () => {
      if (!state.editing) refresh();
    };
  } catch {
    // Without BroadcastChannel other tabs' edits show on the next refresh.
  }
  await refresh();
  listMemories();
  await startAgent(memdir);
  status('ready');
  document.body.dataset.ready = 'true';
}

start();
