// The cold-start bench's peer Worker: the empty wasm-bindgen module (bench/cold/empty),
// instantiated as the module loads, exactly as the package's workerd entry does.
import wasm from './dist/empty_bg.wasm';
import { initSync, ping } from './dist/empty.js';

initSync({ module: wasm });

export default {
  fetch() {
    return new Response(String(ping()));
  },
};
