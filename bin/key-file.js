// An encryption key file, as every command that takes one reads it (`memdir
// --encryption-key-file`, `memdir rekey --new-key-file`, `memdir serve
// --encryption-key-file`, `memdir serve-rekey --new-key-file`): the key as 64 hex
// characters, one trailing newline allowed. Only the file is read here; the key is
// judged by the engine's one rule (memdir::seal::Key::from_hex), and a refusal
// names the flag, never the file's path nor anything it holds.
import { closeSync, openSync, readSync } from 'node:fs';
import { defaults, encryptionKeyId } from '../js/node.js';

/** A key file that cannot be read, or holds no key: a usage error, by flag. */
export class KeyFileError extends Error {}

/**
 * The key in `path` as a catalog's or `openMemory`'s `encryption` (`{key, keyId}`: the text, for
 * the engine to parse), checked now so a bad key is refused before any store is
 * touched. At most `defaults().encryptionKeyFileBytes` are read: a file longer
 * than any key (a device, a log) is refused as not a key without being read whole.
 */
export function readKeyFile(flag, path, keyId) {
  const cap = defaults().encryptionKeyFileBytes;
  let text;
  let fd;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(cap + 1);
    let n = 0;
    for (let got = 1; got > 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    text = buf.subarray(0, n).toString('latin1');
  } catch {
    throw new KeyFileError(`${flag}: the file cannot be read`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  try {
    encryptionKeyId(text, keyId);
  } catch (e) {
    throw new KeyFileError(`${flag}: ${e.message}`);
  }
  return keyId === undefined ? { key: text } : { key: text, keyId };
}
