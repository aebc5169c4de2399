// One bounded read of an HTTP body (a request's, for the servers; an answer's, for
// sync): never more than `max` bytes held, whatever the peer sends or declares.

/**
 * The body of `message` (a Request or a Response) as UTF-8 text, or null when there
 * is none; `{tooLarge}` as soon as more than `max` bytes have arrived (a
 * Content-Length over it is refused before reading); `{bad}` for bytes that are
 * not UTF-8.
 */
export async function readBody(message, max) {
  const declared = message.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > max) return { tooLarge: true };
  if (message.body === null) return { text: null };
  const reader = message.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return { tooLarge: true };
    }
    chunks.push(value);
  }
  if (size === 0) return { text: null };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { bad: true };
  }
}
