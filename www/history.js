// A file's history in the explorer: its versions from the Memory Stores API
// (docs/memory-stores.md) over the same memory the page edits, newest first and
// paged, with any version's content, restore (an update back to that content: a
// new version) and redact. Every rule (pages, which version may be redacted, the
// error texts) is the engine's; this module only asks and shows.
import { ask } from './dialogs.js';

const ROOT = '/memories';
const PAGE = '10';

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
};

/** The API's error text, or a line saying what came back. */
function failure(answer) {
  return answer?.body?.error?.message ?? `The memory answered ${answer?.status}.`;
}

/** `session:explorer`, `api_key:apikey_…`: the actor's kind and id as the API names them. */
export function actorLabel(actor) {
  if (!actor) return '';
  const [kind, id] = Object.entries(actor).find(([k]) => k !== 'type') ?? ['', ''];
  return `${kind.replace(/_id$/, '')}:${id}`;
}

/** The API's time without its milliseconds, in UTC as it says. */
export function timeLabel(iso) {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
}

/**
 * One history view, kept across redraws of the same file (the page redraws on
 * every change): `memory` is the open Memory, `changed()` tells the page (and
 * other tabs) that the memory changed and redraws it.
 */
export function createHistory({ memory, changed }) {
  let state = fresh(null);
  let drawing = 0;

  function fresh(path) {
    // pages: the tokens of the pages before this one (null: the first).
    return { path, page: null, pages: [], shown: null, notice: null };
  }

  async function call(request) {
    try {
      return await memory.api(request);
    } catch (e) {
      return { status: 0, body: { error: { message: e.message } } };
    }
  }

  /** The memory at the tool path `path`, found among its directory's memories. */
  async function memoryAt(path) {
    const storePath = path.slice(ROOT.length);
    const dir = storePath.slice(0, storePath.lastIndexOf('/') + 1);
    let page;
    do {
      const query = { path_prefix: dir, depth: '1', limit: '100' };
      if (page) query.page = page;
      const answer = await call({ op: 'memory.list', query });
      if (answer.status !== 200) return { error: failure(answer) };
      const found = answer.body.data.find((m) => m.type === 'memory' && m.path === storePath);
      if (found) return { memory: found };
      page = answer.body.next_page;
    } while (page);
    return { error: `${path} has no versions in this memory.` };
  }

  /** Draws the history of `path` into `body` (a redraw of the same file keeps its page). */
  async function render(body, path) {
    if (state.path !== path) state = fresh(path);
    const mine = ++drawing;
    const s = state;
    const found = await memoryAt(path);
    let list = null;
    if (found.memory) {
      const query = { memory_id: found.memory.id, limit: PAGE };
      if (s.page) query.page = s.page;
      list = await call({ op: 'version.list', query });
    }
    let shown = null;
    if (s.shown) shown = await call({ op: 'version.retrieve', id: s.shown });
    if (mine !== drawing) return; // a newer draw started meanwhile
    const panel = el('div', { className: 'history-panel', id: 'history-panel' });
    if (s.notice) {
      panel.append(el('div', { className: `history-notice${s.notice.error ? ' error-text' : ''}`, role: 'status' }, s.notice.text));
    }
    if (found.error) {
      panel.append(el('div', { className: 'empty error-text' }, found.error));
    } else if (list.status !== 200) {
      panel.append(el('div', { className: 'empty error-text' }, failure(list)));
    } else {
      panel.append(versionTable(list.body.data, found.memory), pager(list.body.next_page));
    }
    if (shown) panel.append(versionContent(shown));
    body.replaceChildren(panel);
  }

  function versionTable(versions, mem) {
    const rows = versions.map((v) => {
      const current = v.id === mem.memory_version_id;
      const redacted = Boolean(v.redacted_at);
      const size = redacted ? 'redacted' : v.content_size_bytes === null ? '' : `${v.content_size_bytes} B`;
      const row = el(
        'tr',
        { className: `version${current ? ' current' : ''}${redacted ? ' redacted' : ''}` },
        el('td', { className: 'op' }, v.operation),
        el('td', { className: 'time', title: v.created_at }, timeLabel(v.created_at)),
        el('td', { className: 'actor' }, actorLabel(v.created_by)),
        el('td', { className: 'size' }, size),
        el(
          'td',
          { className: 'version-actions' },
          button('Show', () => show(v.id)),
          button('Restore', () => restore(v, mem), '', redacted || current || v.operation === 'deleted'),
          button('Redact', () => redact(v), 'danger', redacted),
        ),
      );
      row.dataset.id = v.id;
      if (current) row.title = 'The current version: what the file holds now';
      return row;
    });
    const head = el('tr', {}, ...['operation', 'time', 'actor', 'size', ''].map((h) => el('th', {}, h)));
    return el('table', { className: 'versions' }, el('thead', {}, head), el('tbody', {}, ...rows));
  }

  function pager(next) {
    const s = state;
    const newer = button('Newer', () => {
      s.page = s.pages.pop() ?? null;
      s.notice = null;
      redraw();
    }, '', s.pages.length === 0 && s.page === null);
    const older = button('Older', () => {
      s.pages.push(s.page);
      s.page = next;
      s.notice = null;
      redraw();
    }, '', !next);
    return el('div', { className: 'history-pager' }, newer, older);
  }

  function versionContent(answer) {
    if (answer.status !== 200) return el('div', { className: 'empty error-text' }, failure(answer));
    const v = answer.body;
    const title = el('div', { className: 'version-head' }, `${v.id} · ${v.operation} · ${timeLabel(v.created_at)}`);
    let text;
    if (v.redacted_at) text = el('div', { className: 'empty' }, `Redacted ${timeLabel(v.redacted_at)}: its content is gone.`);
    else if (v.content === null) text = el('div', { className: 'empty' }, 'This version holds no content: the memory was deleted.');
    else text = el('pre', { className: 'raw version-text' }, v.content);
    return el('div', { className: 'version-content' }, title, text);
  }

  function button(label, onclick, cls = '', disabled = false) {
    return el('button', { type: 'button', textContent: label, className: cls, disabled, onclick });
  }

  let redraw = () => {};

  function show(id) {
    state.shown = id;
    state.notice = null;
    redraw();
  }

  async function restore(v, mem) {
    const got = await call({ op: 'version.retrieve', id: v.id });
    let answer = got;
    if (got.status === 200) answer = await call({ op: 'memory.update', id: mem.id, body: { content: got.body.content } });
    if (answer.status === 200) {
      state.page = null;
      state.pages = [];
      state.notice = { text: `Restored ${v.id} as ${answer.body.memory_version_id}.` };
    } else {
      state.notice = { text: failure(answer), error: true };
    }
    await changed();
  }

  async function redact(v) {
    const ok = await ask({
      title: `Redact ${v.id}?`,
      text: 'Its content is deleted from this memory for good; who wrote it and when stay.',
      submit: 'Redact',
      danger: true,
    });
    if (!ok) return;
    const answer = await call({ op: 'version.redact', id: v.id });
    state.notice = answer.status === 200 ? { text: `Redacted ${v.id}.` } : { text: failure(answer), error: true };
    if (answer.status === 200) await changed();
    else redraw();
  }

  return {
    /** Draws into `body`; later redraws of the history (paging, show) go to the same place. */
    render(body, path) {
      redraw = () => render(body, path);
      return render(body, path);
    },
  };
}
