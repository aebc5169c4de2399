// The wasm-bindgen glue of the one engine build this runtime loaded. There are two
// builds (dist/ with the browser's IndexedDB store, dist/node/ without it), each with
// its own glue; the entry point (node.js, browser.js, workerd.js, default.js)
// imports and initialises its runtime's build and hands it over here before it
// exports anything, and every other module reaches the engine through `glue`.
/** The initialised glue module (`dist/memdir_wasm.js` or `dist/node/memdir_wasm.js`). */
export let glue;

/**
 * The memory tool's six command names, as the engine's parser takes them
 * (`memdir::COMMANDS`): set with the glue, before any entry point exports.
 */
export let COMMANDS;

/** The commands that never change a store (`memdir::READ_ONLY_COMMANDS`). */
export let READ_ONLY_COMMANDS;

/** The Memory Stores API operations that change a store (`memdir::api::WRITE_OPS`). */
export let API_WRITE_OPS;

/**
 * The memory-store toolset's tools that never change a store (`read_only` in
 * `memdir::toolset::TOOLS`). Read on the first toolset call that may need a turn,
 * not at import: the toolset's definitions are the largest text the engine makes
 * at start, and most processes never call the toolset.
 */
let readOnlyToolNames;
export function readOnlyTools() {
  readOnlyToolNames ??= Object.freeze(toolsetDefinitions().filter((t) => t.read_only).map((t) => t.name));
  return readOnlyToolNames;
}

let toolset;
/**
 * The toolset's definitions as the engine makes them (`memdir::toolset::TOOLS`),
 * made and parsed once, frozen: core.js's `toolsetTools` and `readOnlyTools` share them.
 */
export function toolsetDefinitions() {
  toolset ??= deepFreeze(JSON.parse(glue.toolsetTools()));
  return toolset;
}

/** `value` and everything in it, frozen. */
export function deepFreeze(value) {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The wrapper's own failures' texts, by kind (`memdir::FaceError`): `closed`, `internal`. */
export let FACE_ERRORS;

/**
 * A store's face that answers synchronously, for the engine only: a store whose
 * public methods are async (as the protocol's callers expect) may carry under this
 * symbol the same methods returning plain values. The engine takes a plain value as
 * it is, so a command on such a store finishes within its call, with no microtask
 * per store call (a fifth of a view on a synchronous store).
 */
export const AT_ONCE = Symbol('memdir.atOnce');

/**
 * Called once, by the entry point, with the glue it initialised. Every entry shares
 * this module's state, so one realm runs one build: a second, different build (the
 * lean `memdir/tool` beside the full `memdir`) is refused rather than swapped in
 * under the first's open memories and store handles.
 */
export function useGlue(initialised) {
  if (glue === initialised) return;
  if (glue !== undefined) {
    throw new Error('memdir and memdir/tool are two builds of one engine and cannot both be loaded here: import one of them');
  }
  glue = initialised;
  const [commands, readOnlyCommands] = JSON.parse(glue.commandNames());
  COMMANDS = Object.freeze(commands);
  READ_ONLY_COMMANDS = Object.freeze(readOnlyCommands);
  // The lean build (memdir/tool) has no Memory Stores API, so no operation of it writes.
  API_WRITE_OPS = Object.freeze(typeof glue.apiWriteOps === 'function' ? JSON.parse(glue.apiWriteOps()) : []);
  FACE_ERRORS = Object.freeze(Object.fromEntries(JSON.parse(glue.faceErrors())));
}

/**
 * Whether the build loaded has `name` (a glue export, or a method of its Memory):
 * the lean build (`memdir/tool`, feature `tool`) has only the memory tool's.
 */
export function inBuild(name, of = glue) {
  return typeof of?.[name] === 'function';
}

/** The refusal of what the lean build (`memdir/tool`) leaves out, naming it. */
export function notInTool(what) {
  return new TypeError(`${what} is not in memdir/tool, which runs the memory tool alone: import memdir for it`);
}
