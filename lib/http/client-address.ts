// Who is on the other end of a request. Route handlers never see the socket, and Next.js keeps any
// X-Forwarded-For a client sends, so a client could claim any address. At start-up we therefore stamp
// each incoming request with the socket's address in a header of our own (overwriting whatever a client
// put there); X-Forwarded-For is believed only with TRUST_PROXY. An IPv4 client of a dual-stack
// listener (HOST=::) arrives as ::ffff:a.b.c.d: every consumer (limits, audit log) gets a.b.c.d.
import { IncomingMessage, Server } from 'node:http';
import { env } from '@/lib/env';
import { unwrapMappedIpv4 } from './ip-address';
import { processSingleton } from '@/lib/server/process-singleton';

const PEER_HEADER = 'x-gatehouse-peer-address';

/** Installs the stamping once per process (called from the start-up hook, before any request). */
export function installPeerAddressStamp(): void {
  processSingleton('peerStamp', stampPeerAddresses);
}

function stampPeerAddresses(): true {
  const originalEmit = Server.prototype.emit;
  Server.prototype.emit = function emit(this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === 'request' && args[0] instanceof IncomingMessage) {
      const request = args[0];
      request.headers[PEER_HEADER] = request.socket.remoteAddress ?? '';
    }
    return originalEmit.apply(this, [event, ...args] as Parameters<typeof originalEmit>);
  } as typeof Server.prototype.emit;
  return true;
}

/** The client's IP address: the proxy's last X-Forwarded-For hop with TRUST_PROXY, else the socket's. */
export function clientAddress(headers: Headers): string {
  if (env().trustProxy) {
    const hops = (headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((hop) => hop.trim())
      .filter(Boolean);
    const last = hops.at(-1);
    if (last) return unwrapMappedIpv4(last);
  }
  return unwrapMappedIpv4(headers.get(PEER_HEADER) || 'unknown');
}
