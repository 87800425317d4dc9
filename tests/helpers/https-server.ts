// A local HTTPS server with a self-signed certificate for 127.0.0.1 (and any extra host names, which a
// test resolves to this machine with dns-override.cjs), and a CA bundle that trusts it, for serving Client
// ID Metadata Documents to a test Gatehouse. It records every request it receives, so that a test can
// show that a refused fetch never reached it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type DocumentServer = {
  origin: string;
  port: number;
  caBundle: string;
  documents: Map<string, unknown>;
  /** Paths answered with a 302 to the given location. */
  redirects: Map<string, string>;
  /** Paths answered only after this many milliseconds (a slow document server). */
  delays: Map<string, number>;
  /** Every request received, as `Host path`. */
  requests: string[];
  close(): Promise<void>;
};

export async function startDocumentServer(options: { hostnames?: string[] } = {}): Promise<DocumentServer> {
  const altNames = ['IP:127.0.0.1', ...(options.hostnames ?? []).map((name) => `DNS:${name}`)].join(',');
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cimd-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-keyout', key, '-out', cert, '-subj', '/CN=127.0.0.1', '-addext', `subjectAltName=${altNames}`],
    { stdio: 'ignore' },
  );
  // The machine may already trust extra CAs through NODE_EXTRA_CA_CERTS: keep them.
  const existing = process.env.NODE_EXTRA_CA_CERTS;
  const caBundle = join(dir, 'ca-bundle.pem');
  writeFileSync(caBundle, `${existing && existsSync(existing) ? readFileSync(existing, 'utf8') : ''}\n${readFileSync(cert, 'utf8')}`);

  const documents = new Map<string, unknown>();
  const redirects = new Map<string, string>();
  const delays = new Map<string, number>();
  const requests: string[] = [];
  const server: Server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, async (request, response) => {
    requests.push(`${request.headers.host} ${request.url}`);
    const delay = delays.get(request.url ?? '');
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    const redirect = redirects.get(request.url ?? '');
    if (redirect) {
      response.writeHead(302, { location: redirect }).end();
      return;
    }
    const document = documents.get(request.url ?? '');
    if (!document) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    response.end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { origin: `https://127.0.0.1:${port}`, port, caBundle, documents, redirects, delays, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
