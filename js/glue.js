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

/** Called once, by the entry point, with the glue it initialised. */
export function useGlue(initialised) {
  glue = initialised;
  COMMANDS = Object.freeze(JSON.parse(glue.memoryTool()).commands);
}
