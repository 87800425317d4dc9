// HTTP requests sent from a chosen loopback address (127.0.0.2, ::1…), to tell clients apart by their
// address as a server sees them. The global fetch cannot bind its socket's local address, so this is
// node:http with `localAddress`, answering with a Web Response like fetch (redirects are not followed).
import { request } from 'node:http';

export type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/** A fetch whose requests leave from `localAddress`, to the loopback address of the same family. */
export function fetchFrom(localAddress: string): Fetch {
  const loopback = localAddress.includes(':') ? '::1' : '127.0.0.1';
  return (url, init = {}) => {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    headers.set('host', target.host);
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
    return new Promise<Response>((resolve, reject) => {
      const outgoing = request(
        { host: loopback, port: target.port, localAddress, method: init.method ?? 'GET', path: `${target.pathname}${target.search}`, headers: Object.fromEntries(headers) },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () => {
            const answer = new Headers();
            for (const [name, value] of Object.entries(incoming.headers)) {
              for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) answer.append(name, item);
            }
            const status = incoming.statusCode ?? 0;
            const hasBody = ![101, 204, 205, 304].includes(status);
            resolve(new Response(hasBody ? Buffer.concat(chunks) : null, { status, headers: answer }));
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
}
