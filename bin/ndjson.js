// Newline-delimited JSON on a byte stream, with the engine's input cap applied while
// reading: a line is held only up to the cap, and the rest of a longer one is dropped
// as it arrives, so a line of any length costs at most the cap in memory.

const LF = 0x0a;
const CR = 0x0d;

/**
 * The lines of `stream` (Buffers), split at `\n` with one `\r` before it dropped, and
 * the last line kept even without a newline. Each is yielded as text (decoded as
 * UTF-8, an invalid byte becoming U+FFFD, as Node's readline does), or as `null` for
 * a line over `cap` bytes, whose bytes were never held.
 */
export async function* lines(stream, cap) {
  let parts = [];
  let size = 0;
  let over = false;

  function take() {
    const wasOver = over;
    const buf = Buffer.concat(parts, size);
    parts = [];
    size = 0;
    over = false;
    if (wasOver) return null;
    const line = buf[buf.length - 1] === CR ? buf.subarray(0, -1) : buf;
    return line.length > cap ? null : line.toString('utf8');
  }

  for await (const chunk of stream) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(LF, start);
      const stop = nl === -1 ? chunk.length : nl;
      if (!over) {
        // One byte of room for a `\r` before the newline.
        if (size + (stop - start) > cap + 1) {
          over = true;
          parts = [];
          size = 0;
        } else if (stop > start) {
          parts.push(chunk.subarray(start, stop));
          size += stop - start;
        }
      }
      if (nl === -1) break;
      yield take();
      start = nl + 1;
    }
  }
  if (over || size > 0) yield take();
}
