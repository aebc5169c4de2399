// The console: pick one of the six commands and fill its fields, or paste any tool
// input as JSON; it runs through the engine exactly as a model's call would, and
// shows the exact tool_result. Every command the page runs is recorded here too.

const COMMANDS = {
  view: [
    { name: 'path', kind: 'path' },
    { name: 'view_range', kind: 'range' },
  ],
  create: [
    { name: 'path', kind: 'path' },
    { name: 'file_text', kind: 'text' },
  ],
  str_replace: [
    { name: 'path', kind: 'path' },
    { name: 'old_str', kind: 'text' },
    { name: 'new_str', kind: 'text' },
  ],
  insert: [
    { name: 'path', kind: 'path' },
    { name: 'insert_line', kind: 'number' },
    { name: 'insert_text', kind: 'text' },
  ],
  delete: [{ name: 'path', kind: 'path' }],
  rename: [
    { name: 'old_path', kind: 'path' },
    { name: 'new_path', kind: 'path' },
  ],
};

const HISTORY_MAX = 40;

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
};

/** Builds the console in `root`; `run(text)` executes, `selection()` is the tree's path. */
export function createConsole(root, { run, selection }) {
  let current = 'view';
  const values = {}; // field values, kept across command switches

  const tabs = el('div', { className: 'segmented commands', role: 'tablist' });
  const fields = el('div', { className: 'fields' });
  const input = el('textarea', {
    className: 'json-input',
    id: 'tool-input',
    spellcheck: false,
    rows: 6,
    ariaLabel: 'Tool input (JSON)',
  });
  const runButton = el('button', { type: 'submit', className: 'primary', id: 'run', textContent: 'Run' });
  const hint = el('span', { className: 'muted hint' }, 'Ctrl+Enter');
  const result = el('div', { className: 'result', id: 'tool-result' });
  const history = el('ol', { className: 'history', id: 'history' });

  const form = el(
    'form',
    { className: 'console-form', id: 'console-form' },
    tabs,
    fields,
    el('label', { className: 'field-label', htmlFor: 'tool-input' }, 'tool input'),
    input,
    el('div', { className: 'run-row' }, hint, runButton),
  );
  root.replaceChildren(
    form,
    result,
    el('div', { className: 'history-head' }, el('span', {}, 'History'), el('span', { className: 'muted' }, 'newest first')),
    history,
  );

  function inputObject() {
    const o = { command: current };
    for (const f of COMMANDS[current]) {
      const v = values[f.name];
      if (f.kind === 'range') {
        const [s, e] = v ?? ['', ''];
        if (s !== '' && e !== '') o.view_range = [Number(s), Number(e)];
      } else if (f.kind === 'number') {
        o[f.name] = v === undefined || v === '' ? 0 : Number(v);
      } else {
        o[f.name] = v ?? '';
      }
    }
    return o;
  }

  // Set when the JSON was typed or pasted by hand: then the form leaves it alone
  // until the form itself is used again.
  let handWritten = false;
  input.addEventListener('input', () => {
    handWritten = true;
    // JSON typed or pasted by hand: when it is a command the form knows, show its
    // fields in the form too (the JSON itself is what runs, unchanged).
    let typed = null;
    try {
      typed = JSON.parse(input.value);
    } catch {
      return; // not JSON (yet)
    }
    if (!typed || typeof typed !== 'object' || !Object.hasOwn(COMMANDS, typed.command)) return;
    current = typed.command;
    for (const f of COMMANDS[current]) {
      const v = typed[f.name];
      if (f.kind === 'range') values[f.name] = Array.isArray(v) ? v.map(String) : ['', ''];
      else values[f.name] = v === undefined || v === null ? '' : String(v);
    }
    for (const b of tabs.children) b.classList.toggle('on', b.dataset.command === current);
    drawFields();
  });

  function syncJson() {
    handWritten = false;
    input.value = JSON.stringify(inputObject(), null, 2);
  }

  function drawFields() {
    const sel = selection();
    fields.replaceChildren(
      ...COMMANDS[current].map((f) => {
        if (values[f.name] === undefined && f.kind === 'path') values[f.name] = sel;
        const id = `field-${f.name}`;
        let control;
        if (f.kind === 'text') {
          control = el('textarea', { id, name: f.name, rows: 3, spellcheck: false, value: values[f.name] ?? '' });
        } else if (f.kind === 'number') {
          control = el('input', { id, name: f.name, type: 'number', step: 1, value: values[f.name] ?? '0' });
        } else if (f.kind === 'range') {
          const [s, e] = values[f.name] ?? ['', ''];
          const start = el('input', { id, type: 'number', placeholder: 'start', value: s });
          const end = el('input', { id: `${id}-end`, type: 'number', placeholder: 'end (-1: last)', value: e });
          const update = () => {
            values[f.name] = [start.value, end.value];
            syncJson();
          };
          start.oninput = update;
          end.oninput = update;
          return el(
            'div',
            { className: 'field' },
            el('label', { className: 'field-label', htmlFor: id }, f.name, el('span', { className: 'muted' }, ' optional')),
            el('div', { className: 'range' }, start, end),
          );
        } else {
          control = el('input', { id, name: f.name, spellcheck: false, value: values[f.name] ?? '' });
        }
        control.oninput = () => {
          values[f.name] = control.value;
          syncJson();
        };
        return el('div', { className: 'field' }, el('label', { className: 'field-label', htmlFor: id }, f.name), control);
      }),
    );
  }

  function select(command) {
    current = command;
    for (const b of tabs.children) b.classList.toggle('on', b.dataset.command === command);
    // Path fields follow the tree's selection when a command is picked.
    for (const f of COMMANDS[command]) if (f.kind === 'path') values[f.name] = undefined;
    drawFields();
    syncJson();
  }

  for (const name of Object.keys(COMMANDS)) {
    tabs.append(
      el('button', {
        type: 'button',
        textContent: name,
        role: 'tab',
        onclick: () => select(name),
      }),
    );
    tabs.lastChild.dataset.command = name;
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    runButton.disabled = true;
    try {
      await run(input.value);
    } finally {
      runButton.disabled = false;
    }
  });
  input.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  select('view');

  function showResult(target, r, ms) {
    target.replaceChildren(
      el(
        'div',
        { className: 'result-head' },
        el('span', { className: 'label' }, 'tool_result'),
        el('span', { className: `badge ${r.is_error ? 'err' : 'ok'}` }, `is_error: ${r.is_error}`),
        ms === undefined ? null : el('span', { className: 'muted' }, `${ms.toFixed(1)} ms`),
      ),
      el('pre', { className: `content${r.is_error ? ' is-error' : ''}` }, r.content),
    );
  }

  function summary(text) {
    try {
      const o = JSON.parse(text);
      if (o && typeof o === 'object' && !Array.isArray(o)) {
        return { command: String(o.command ?? '?'), path: String(o.path ?? (o.old_path ? `${o.old_path} → ${o.new_path}` : '')) };
      }
    } catch {
      // shown as raw input
    }
    return { command: 'input', path: text.slice(0, 60) };
  }

  function addHistory(cmd, path, body, isError, source) {
    const entry = el(
      'li',
      {},
      el(
        'details',
        {},
        el(
          'summary',
          {},
          el('span', { className: `dot ${isError ? 'err' : 'ok'}` }),
          el('span', { className: 'cmd' }, cmd),
          el('span', { className: 'path' }, path),
          source === 'page' || source === 'model' ? el('span', { className: 'source' }, source) : null,
        ),
        body,
      ),
    );
    history.prepend(entry);
    while (history.children.length > HISTORY_MAX) history.lastChild.remove();
  }

  return {
    /** The tree's selection changed: path fields follow it, unless JSON was typed. */
    follow(path) {
      if (handWritten) return;
      for (const f of COMMANDS[current]) if (f.name === 'path' || f.name === 'old_path') values[f.name] = path;
      drawFields();
      syncJson();
    },
    /** Shows a finished command as the current result and adds it to the history. */
    record(input, r, ms, source) {
      const text = typeof input === 'string' ? input : JSON.stringify(input, null, 2);
      showResult(result, r, ms);
      const { command, path } = summary(text);
      const body = el('div', { className: 'history-body' });
      body.append(el('div', { className: 'field-label' }, 'tool input'), el('pre', { className: 'content' }, text));
      const res = el('div');
      showResult(res, r, ms);
      body.append(res);
      addHistory(command, path, body, r.is_error, source);
    },
    /** A page action that is not a tool command (export, import). */
    note(what, message, isError = false) {
      result.replaceChildren(
        el('div', { className: 'result-head' }, el('span', { className: 'label' }, what), el('span', { className: `badge ${isError ? 'err' : 'ok'}` }, isError ? 'failed' : 'done')),
        el('pre', { className: `content${isError ? ' is-error' : ''}` }, message),
      );
      addHistory(what, message, el('pre', { className: 'content' }, message), isError, 'page');
    },
  };
}
