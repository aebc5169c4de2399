// Byte helpers the edge stores share (workerd has no Buffer).

/** Whether two byte arrays (or two absent values) hold the same bytes. */
export function equalBytes(a, b) {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
