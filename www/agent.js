// The chat: Claude, through the official Anthropic SDK running in this page (its
// tool runner, bundled by scripts/bundle-sdk.mjs), with the memory tool on the
// IndexedDB memory the explorer shows. The API key lives only in this tab's
// sessionStorage and goes only to the API in the settings, which must be
// Anthropic's own or a loopback one (a local proxy, a test's fake API); the
// server's Content-Security-Policy holds the page to the same list.

export const OFFICIAL_API = 'https://api.anthropic.com';
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost'];
const DEFAULT_MODEL = 'claude-sonnet-5-5';
const MAX_TOKENS = 4096;
// sessionStorage: this tab only, gone when it closes. Never localStorage.
const SAVED = { key: 'memdir-agent:api-key', api: 'memdir-agent:api', model: 'memdir-agent:model' };

export const KEY_NOTICE =
  "Your API key is kept in this tab's sessionStorage only (closing the tab forgets it) and is sent only to the API " +
  'below, never to this page\'s server. The API must be https://api.anthropic.com or a loopback address ' +
  '(127.0.0.1 or localhost, for a local proxy or a test).';

export const NEEDS_KEY =
  'To talk to Claude with this memory, this page needs an Anthropic API key (console.anthropic.com → API keys). ' +
  'Without one, the rest of the page still works: the tree, the file view, and the Console & history tab.';

/**
 * A failed API call in the chat's words: the status and the API's own message
 * (the SDK's `e.message` is the status and the raw JSON body), or the SDK's text
 * when nothing answered.
 */
function failureText(e) {
  const detail = e?.error?.error;
  if (typeof e?.status === 'number' && typeof detail?.message === 'string') {
    const what = e.status === 401 ? 'The API key was refused' : 'The API answered';
    return `${what} (${e.status} ${detail.type}): ${detail.message}`;
  }
  return `The API call failed: ${e?.message ?? e}`;
}

/**
 * The API origin to use for `text`, or why not: `{ api }` or `{ error }`. Only
 * Anthropic's API (https) or a loopback origin, given as an origin alone.
 */
export function checkApi(text) {
  let url;
  try {
    url = new URL(String(text).trim());
  } catch {
    return { error: `"${text}" is not a URL; give the API's origin, e.g. ${OFFICIAL_API}` };
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    return { error: `Give the API's origin only (scheme, host, port), e.g. ${OFFICIAL_API}` };
  }
  if (url.origin === OFFICIAL_API) return { api: url.origin };
  if ((url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.includes(url.hostname)) return { api: url.origin };
  return { error: `${url.origin} is not allowed: the API must be ${OFFICIAL_API} or a loopback address (127.0.0.1 or localhost)` };
}

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
};

/**
 * Builds the chat in `root`. `memdir` is the package's browser module; the model's
 * memory is `memdir:{memoryName}` in IndexedDB, the one the explorer shows.
 * `onToolCall(input, {content, is_error}, ms)` hears every memory call the model
 * makes; `reveal(path)` shows a path in the tree; `showConsole()` opens the console.
 */
export async function startAgent(root, { memdir, memoryName, onToolCall, reveal, showConsole }) {
  const params = new URLSearchParams(location.search);
  const settings = {
    key: sessionStorage.getItem(SAVED.key) ?? '',
    api: params.get('api') ?? sessionStorage.getItem(SAVED.api) ?? OFFICIAL_API,
    model: params.get('model') ?? sessionStorage.getItem(SAVED.model) ?? DEFAULT_MODEL,
  };

  // The model's own handle on the memory: its commits are signed "agent".
  const memory = await memdir.openMemory({ store: memdir.indexedDbStore(memoryName), actor: 'agent' });
  const sdkTool = memdir.betaMemoryTool(memory);
  // The SDK's tool, and the page hears each call with the text the runner sends
  // back (the runner writes a failure as `Error: ` and the message, is_error set).
  const tool = {
    ...sdkTool,
    run: async (input) => {
      const t0 = performance.now();
      let content;
      let failure = null;
      try {
        content = await sdkTool.run(input);
      } catch (e) {
        failure = e;
      }
      const result = failure ? { content: `Error: ${failure.message}`, is_error: true } : { content, is_error: false };
      try {
        await heard(input, result, performance.now() - t0);
      } catch {
        // Showing the call is the page's business; it never changes the model's answer.
      }
      if (failure) throw failure;
      return content;
    },
  };

  // ---------------------------------------------------------------- the pane
  const notice = el('div', { className: 'chat-notice', id: 'key-notice' }, KEY_NOTICE);
  const keyInput = el('input', { id: 'agent-key', type: 'password', autocomplete: 'off', spellcheck: false, placeholder: 'sk-ant-…' });
  const apiInput = el('input', { id: 'agent-api', spellcheck: false, value: settings.api });
  const modelInput = el('input', { id: 'agent-model', spellcheck: false, value: settings.model });
  const setupError = el('div', { className: 'chat-error', id: 'agent-setup-error', role: 'alert' });
  const needs = el('p', { className: 'chat-needs', id: 'agent-needs' }, NEEDS_KEY);
  const cancelSetup = el('button', { type: 'button', textContent: 'Cancel' });
  const setup = el(
    'form',
    { className: 'chat-setup', id: 'agent-setup' },
    needs,
    el('label', { className: 'field-label' }, 'Anthropic API key', keyInput),
    el('label', { className: 'field-label' }, 'API', apiInput),
    el('label', { className: 'field-label' }, 'model', modelInput),
    setupError,
    el(
      'div',
      { className: 'run-row' },
      el('button', { type: 'button', className: 'link', textContent: 'Open the console instead', onclick: showConsole }),
      cancelSetup,
      el('button', { type: 'submit', className: 'primary', id: 'agent-save', textContent: 'Start chatting' }),
    ),
  );
  const summary = el('span', { className: 'chat-summary', id: 'agent-summary' });
  const bar = el(
    'div',
    { className: 'chat-bar' },
    summary,
    el('button', { type: 'button', className: 'link', textContent: 'Settings', onclick: () => showSetup(true) }),
    el('button', { type: 'button', className: 'link', id: 'agent-forget', textContent: 'Forget key', onclick: forget }),
  );
  const log = el('div', { className: 'chat-log', id: 'chat-log', ariaLive: 'polite' });
  const input = el('textarea', { id: 'chat-input', rows: 3, placeholder: 'Message Claude (Enter to send, Shift+Enter for a new line)' });
  const send = el('button', { type: 'submit', className: 'primary', id: 'chat-send', textContent: 'Send' });
  const composer = el('form', { className: 'chat-composer', id: 'chat-composer' }, input, send);
  root.replaceChildren(notice, setup, bar, log, composer);

  let client = null;
  let conversation = [];
  let running = null; // the AbortController of the turn in progress

  /**
   * `open`: the settings form instead of the chat. The key field takes the focus
   * when a person opened the form; when the page opens on it, it takes the focus
   * without scrolling, so a phone (where the chat is the third panel down) opens at
   * the top of the page, not at the key field.
   */
  function showSetup(open, { atStart = false } = {}) {
    const configured = settings.key !== '';
    setup.hidden = !open;
    needs.hidden = configured;
    cancelSetup.hidden = !configured;
    bar.hidden = open || !configured;
    log.hidden = !configured;
    composer.hidden = open || !configured;
    setupError.textContent = '';
    keyInput.value = '';
    keyInput.placeholder = configured ? 'unchanged (…' + settings.key.slice(-4) + ')' : 'sk-ant-…';
    apiInput.value = settings.api;
    modelInput.value = settings.model;
    summary.textContent = configured ? `${settings.model} · ${settings.api} · key …${settings.key.slice(-4)}` : '';
    root.dataset.state = open || !configured ? 'setup' : 'chat';
    if (open) keyInput.focus({ preventScroll: atStart });
  }

  async function loadSdk() {
    if (client) return client;
    let Anthropic;
    try {
      ({ Anthropic } = await import('./vendor/anthropic-sdk.js'));
    } catch {
      throw new Error('The Anthropic SDK bundle is missing: run `npm start` (it bundles it) or `node scripts/bundle-sdk.mjs`, then reload.');
    }
    client = new Anthropic({
      apiKey: settings.key,
      baseURL: settings.api,
      // The key is the user's own, typed into this tab, and goes only to settings.api.
      dangerouslyAllowBrowser: true,
      maxRetries: 1,
    });
    return client;
  }

  setup.addEventListener('submit', (e) => {
    e.preventDefault();
    const key = keyInput.value.trim() || settings.key;
    const api = checkApi(apiInput.value);
    const model = modelInput.value.trim();
    if (!key) return void (setupError.textContent = 'Paste an API key first.');
    if (api.error) return void (setupError.textContent = api.error);
    if (!model) return void (setupError.textContent = 'Name a model, e.g. ' + DEFAULT_MODEL);
    Object.assign(settings, { key, api: api.api, model });
    sessionStorage.setItem(SAVED.key, key);
    sessionStorage.setItem(SAVED.api, api.api);
    sessionStorage.setItem(SAVED.model, model);
    client = null;
    showSetup(false);
    input.focus();
  });
  cancelSetup.onclick = () => showSetup(false);

  function forget() {
    running?.abort();
    for (const k of Object.values(SAVED)) sessionStorage.removeItem(k);
    settings.key = '';
    client = null;
    showSetup(true);
  }

  // ---------------------------------------------------------------- the log
  let pending = null; // "Claude is working…", kept last while a turn runs

  function add(node) {
    if (pending?.parentNode === log) log.insertBefore(node, pending);
    else log.append(node);
    log.scrollTop = log.scrollHeight;
    return node;
  }

  function say(kind, text) {
    return add(el('div', { className: `msg ${kind}` }, text));
  }

  function toolLine(input, result) {
    const path = input?.path ?? (input?.old_path ? `${input.old_path} → ${input.new_path}` : '');
    const line = el(
      'button',
      { type: 'button', className: `msg tool${result.is_error ? ' is-error' : ''}`, title: result.content },
      el('span', { className: `dot ${result.is_error ? 'err' : 'ok'}` }),
      el('span', { className: 'cmd' }, `memory.${String(input?.command ?? '?')}`),
      el('span', { className: 'path' }, String(path)),
    );
    line.onclick = () => (typeof input?.path === 'string' && !result.is_error ? reveal(input.path) : showConsole());
    add(line);
  }

  async function heard(input, result, ms) {
    toolLine(input, result);
    await onToolCall(input, result, ms);
  }

  say('hint', 'A new conversation. Claude checks its memory first, so what it saved before (in this browser) carries over.');

  async function turn(text) {
    const before = conversation;
    say('user', text);
    pending = say('pending', 'Claude is working…');
    running = new AbortController();
    send.textContent = 'Stop';
    input.disabled = true;
    try {
      const api = await loadSdk();
      const runner = api.beta.messages.toolRunner(
        {
          model: settings.model,
          max_tokens: MAX_TOKENS,
          system: memdir.MEMORY_SYSTEM_PROMPT,
          messages: [...conversation, { role: 'user', content: text }],
          tools: [tool],
          betas: ['context-management-2025-06-27'],
        },
        { signal: running.signal },
      );
      for await (const message of runner) {
        for (const block of message.content) if (block.type === 'text' && block.text) say('assistant', block.text);
      }
      conversation = runner.params.messages;
    } catch (e) {
      // The turn is dropped from the conversation (its history may end mid-call).
      conversation = before;
      const why = running.signal.aborted ? 'Stopped.' : failureText(e);
      say('error', why);
    } finally {
      pending.remove();
      pending = null;
      running = null;
      send.textContent = 'Send';
      input.disabled = false;
      input.focus();
      log.scrollTop = log.scrollHeight;
      root.dataset.turns = String(Number(root.dataset.turns ?? 0) + 1);
    }
  }

  composer.addEventListener('submit', (e) => {
    e.preventDefault();
    if (running) return running.abort();
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    turn(text);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      composer.requestSubmit();
    }
  });

  const checked = checkApi(settings.api);
  if (checked.error) {
    settings.api = OFFICIAL_API;
    showSetup(true, { atStart: true });
    setupError.textContent = checked.error;
    apiInput.value = params.get('api') ?? '';
  } else {
    settings.api = checked.api;
    showSetup(settings.key === '', { atStart: true });
  }
}
