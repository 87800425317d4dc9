import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { runNodeHandler } from '@/lib/oauth/bridge';

const options = { publicUrl: 'https://auth.example.com', clientAddress: '203.0.113.7' };

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => resolve(body));
  });
}

describe('the Request ⇄ Node bridge', () => {
  it('hands the handler the method, path, query, headers and body', async () => {
    let seen: Record<string, unknown> = {};
    const response = await runNodeHandler(
      async (req, res) => {
        seen = {
          method: req.method,
          url: req.url,
          contentType: req.headers['content-type'],
          body: await readBody(req),
        };
        res.statusCode = 201;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true }));
      },
      new Request('http://localhost:3000/oauth/token?a=1', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token',
      }),
      options,
    );
    expect(seen).toEqual({
      method: 'POST',
      url: '/oauth/token?a=1',
      contentType: 'application/x-www-form-urlencoded',
      body: 'grant_type=refresh_token',
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('presents PUBLIC_URL as host and scheme, whatever Host and X-Forwarded-* say', async () => {
    let seen: Record<string, unknown> = {};
    await runNodeHandler(
      (req, res) => {
        seen = {
          host: req.headers.host,
          forwardedHost: req.headers['x-forwarded-host'],
          encrypted: (req.socket as unknown as { encrypted: boolean }).encrypted,
          address: req.socket.remoteAddress,
        };
        res.end();
      },
      new Request('http://evil.example/x', { headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' } }),
      options,
    );
    expect(seen).toEqual({ host: 'auth.example.com', forwardedHost: undefined, encrypted: true, address: '203.0.113.7' });
  });

  it('keeps every Set-Cookie header and streams written in pieces', async () => {
    const response = await runNodeHandler(
      (_req: IncomingMessage, res: ServerResponse) => {
        res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
        res.write('hel');
        res.write(Buffer.from('lo'));
        res.end();
      },
      new Request('http://localhost/x'),
      options,
    );
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(await response.text()).toBe('hello');
  });

  it('sends no body with 204 and 304', async () => {
    const response = await runNodeHandler(
      (_req, res) => {
        res.statusCode = 204;
        res.end('ignored');
      },
      new Request('http://localhost/x', { method: 'DELETE' }),
      options,
    );
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it('rejects when the handler fails without answering', async () => {
    await expect(runNodeHandler(async () => Promise.reject(new Error('boom')), new Request('http://localhost/x'), options)).rejects.toThrow('boom');
  });
});
