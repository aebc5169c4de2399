// One HTTP request on a fresh loopback connection, as the HTTP fuzz sends it to
// `memdir serve` and to workerd (Node only: it uses node:http, so that any method
// and header goes out as written, which fetch would refuse or rewrite).
import http from 'node:http';

/** `request` to the server at `url`; resolves {status, headers, text}. */
export function over(url, { method, path, headers, body }, timeoutMs = 20_000) {
  // A body's length is declared: Node's client sends none for DELETE or OPTIONS, and
  // the body would be read as the next request (serve-hostile.test.mjs has that case).
  const framed = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path, method, headers: framed, agent: false, timeout: timeoutMs }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve({ status: res.statusCode, headers: h, text: Buffer.concat(parts).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}
