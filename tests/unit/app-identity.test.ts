// lib/apps/identity.ts: which app a registration belongs to, over what real MCP clients send.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appIdentity, type RegistrationFacts } from '@/lib/apps/identity';
import { PROJECT_ROOT } from '../../lib/cli/standalone';

type Fixture = { client: string; registration_body: Record<string, unknown> };
const fixtures = JSON.parse(readFileSync(join(PROJECT_ROOT, 'tests', 'fixtures', 'mcp-client-registrations.json'), 'utf8')) as Fixture[];

function fixture(prefix: string): Record<string, unknown> {
  const found = fixtures.find((item) => item.client.startsWith(prefix));
  if (!found) throw new Error(`no fixture ${prefix}`);
  return found.registration_body;
}

let next = 0;
/** One dynamic registration of `body`, with a client_id of its own as the server would issue. */
function registered(body: Record<string, unknown>, registration = 'dynamic'): RegistrationFacts {
  next += 1;
  return { ...body, client_id: `client-${next}`, registration };
}

const identity = (body: Record<string, unknown>, registration?: string) => appIdentity(registered(body, registration));

describe('app identity of the registrations real clients send', () => {
  it('gives Cursor its hosts and scheme as marks, leaving loopback out', () => {
    const cursor = identity(fixture('Cursor (desktop'));
    expect(cursor.kind).toBe('redirects');
    expect(cursor.displayName).toBe('Cursor');
    expect(cursor.marks).toEqual(['host:www.cursor.com', 'scheme:cursor']);
    expect(cursor.evidence).toEqual({ kind: 'redirects', hosts: ['www.cursor.com'], schemes: ['cursor'], name: 'Cursor', softwareId: null });
  });

  it('gives VS Code both of its https hosts, sorted', () => {
    const vscode = identity(fixture('VS Code'));
    expect(vscode.marks).toEqual(['host:insiders.vscode.dev', 'host:vscode.dev']);
    expect(vscode.displayName).toBe('Visual Studio Code');
  });

  it('groups Claude web and Claude Desktop, which register the same body, into one app; ChatGPT is another', () => {
    const web = identity(fixture('Claude (claude.ai'));
    const desktop = identity(fixture('Claude Desktop - remote'));
    const chatgpt = identity(fixture('ChatGPT'));
    expect(web.key).toBe(desktop.key);
    expect(web.marks).toEqual(['host:claude.ai']);
    expect(chatgpt.marks).toEqual(['host:chatgpt.com']);
    expect(chatgpt.key).not.toBe(web.key);
  });

  it('keys loopback-only clients on their name (and software_id, client_uri), with no marks', () => {
    const codex = identity(fixture('Codex'));
    const claudeCode = identity(fixture('Claude Code'));
    const proxy = identity(fixture('Claude Desktop - local'));
    for (const app of [codex, claudeCode, proxy]) {
      expect(app.kind).toBe('loopback');
      expect(app.marks).toEqual([]);
    }
    expect(codex.displayName).toBe('Codex');
    expect(codex.evidence).toEqual({ kind: 'loopback', name: 'Codex', softwareId: null, clientUri: null, clientId: null });
    expect(proxy.evidence).toMatchObject({ softwareId: '2e6dc280-f3c3-4e01-99a7-8181dbd1d23d', clientUri: 'https://github.com/modelcontextprotocol/mcp-cli' });
    // Another port is the same app: loopback ports are the client's to pick (RFC 8252 §7.3).
    expect(identity({ ...fixture('Codex'), redirect_uris: ['http://127.0.0.1:37819/callback/x'] }).key).toBe(codex.key);
    expect(identity({ ...fixture('Codex'), redirect_uris: ['http://localhost:1/cb', 'http://[::1]:2/cb'] }).key).toBe(codex.key);
  });

  it('gives every fixture one key per product, the same each time it registers', () => {
    for (const item of fixtures) {
      const keys = new Set([1, 2, 3].map(() => identity(item.registration_body).key));
      expect(keys.size, item.client).toBe(1);
    }
    const distinct = new Set(fixtures.map((item) => identity(item.registration_body).key));
    // Claude web and Claude Desktop's connector send the same body; every other fixture is its own app.
    expect(distinct.size).toBe(fixtures.length - 1);
  });

  it('treats name case and white space as one name, and shows the name trimmed', () => {
    const body = fixture('ChatGPT');
    const keys = ['ChatGPT', ' chatgpt ', 'CHATGPT', 'Chat\u00a0GPT'.replace('\u00a0', ''), '\tChatGPT\n'].map((name) => identity({ ...body, client_name: name }).key);
    expect(new Set(keys).size).toBe(1);
    expect(identity({ ...body, client_name: '  ChatGPT  ' }).displayName).toBe('ChatGPT');
    expect(identity({ ...body, client_name: 'Chat   GPT' }).key).toBe(identity({ ...body, client_name: 'chat gpt' }).key);
    expect(identity({ ...body, client_name: 'Other' }).key).not.toBe(keys[0]);
  });

  it('ignores the order of redirect URIs and their paths, but keeps a non-default port', () => {
    const cursor = fixture('Cursor (desktop');
    const uris = cursor.redirect_uris as string[];
    expect(identity({ ...cursor, redirect_uris: [...uris].reverse() }).key).toBe(identity(cursor).key);
    expect(identity({ ...cursor, redirect_uris: ['https://www.cursor.com/other', 'cursor://x/y'] }).key).toBe(identity(cursor).key);
    const withPort = identity({ client_name: 'A', redirect_uris: ['https://a.example:8443/cb'] });
    expect(withPort.marks).toEqual(['host:a.example:8443']);
    expect(identity({ client_name: 'A', redirect_uris: ['https://a.example:443/cb'] }).marks).toEqual(['host:a.example']);
    expect(withPort.key).not.toBe(identity({ client_name: 'A', redirect_uris: ['https://a.example/cb'] }).key);
  });
});

describe('what grouping never does', () => {
  it('never lets a copy with another redirect host join the app, whatever name and software_id it copies', () => {
    const proxy = fixture('Claude Desktop - local');
    const original = identity({ ...proxy, redirect_uris: ['https://mcp-cli.example/cb'] });
    const copy = identity({ ...proxy, redirect_uris: ['https://evil.example/cb'] });
    expect(copy.key).not.toBe(original.key);
    const claude = fixture('Claude (claude.ai');
    expect(identity({ ...claude, redirect_uris: ['https://claude.ai.evil.example/api/mcp/auth_callback'] }).key).not.toBe(identity(claude).key);
    // Nor one that adds a host to the real ones, nor one that drops one.
    expect(identity({ ...claude, redirect_uris: ['https://claude.ai/cb', 'https://evil.example/cb'] }).key).not.toBe(identity(claude).key);
    const vscode = fixture('VS Code');
    expect(identity({ ...vscode, redirect_uris: ['https://vscode.dev/redirect'] }).key).not.toBe(identity(vscode).key);
    // A loopback-only copy of a hosted app's name is not the hosted app either.
    expect(identity({ ...claude, redirect_uris: ['http://localhost:1/cb'] }).key).not.toBe(identity(claude).key);
  });

  it('never groups by software_id alone', () => {
    const a = identity({ client_name: 'A', software_id: 'same', redirect_uris: ['http://localhost/cb'] });
    const b = identity({ client_name: 'B', software_id: 'same', redirect_uris: ['http://localhost/cb'] });
    expect(a.key).not.toBe(b.key);
    const c = identity({ client_name: 'A', software_id: 'other', redirect_uris: ['http://localhost/cb'] });
    expect(c.key).not.toBe(a.key);
    const d = identity({ client_name: 'A', software_id: 'same', redirect_uris: ['https://a.example/cb'] });
    const e = identity({ client_name: 'A', redirect_uris: ['https://a.example/cb'] });
    expect(d.key).not.toBe(e.key);
  });

  it('keeps keys unambiguous: text that looks like another field does not collide', () => {
    const a = identity({ client_name: 'x","softwareId":"y', redirect_uris: ['https://a.example/cb'] });
    const b = identity({ client_name: 'x', software_id: 'y', redirect_uris: ['https://a.example/cb'] });
    expect(a.key).not.toBe(b.key);
    const loopback = identity({ client_name: 'redirects:{"marks"', redirect_uris: ['http://localhost/cb'] });
    expect(loopback.key.startsWith('loopback:')).toBe(true);
  });

  it('makes an anonymous loopback-only registration an app of its own', () => {
    const a = identity({ redirect_uris: ['http://localhost/cb'] });
    const b = identity({ redirect_uris: ['http://localhost/cb'] });
    expect(a.key).not.toBe(b.key);
    expect(a.evidence).toMatchObject({ kind: 'loopback', clientId: expect.stringMatching(/^client-/) });
  });
});

describe('metadata documents and hand-registered clients', () => {
  it('makes a metadata document URL its own app, marked by the host that serves it', () => {
    const app = appIdentity({ client_id: 'https://app.example/client.json', registration: 'metadata_document', client_name: 'App' });
    expect(app).toEqual({
      key: 'document:https://app.example/client.json',
      kind: 'metadata_document',
      displayName: 'App',
      marks: ['host:app.example'],
      evidence: { kind: 'metadata_document', documentUrl: 'https://app.example/client.json' },
    });
    expect(appIdentity({ client_id: 'https://app.example/client.json', registration: 'metadata_document' }).displayName).toBe('app.example');
    // Spelled as redirect hosts are, so that a block on either covers the other: a port only when not the default.
    expect(appIdentity({ client_id: 'https://App.Example:443/c.json', registration: 'metadata_document' }).marks).toEqual(['host:app.example']);
    expect(appIdentity({ client_id: 'https://app.example:8443/c.json', registration: 'metadata_document' }).marks).toEqual(['host:app.example:8443']);
  });

  it('makes each admin-registered client its own app, even with the same name and hosts', () => {
    const body = { client_name: 'Reports', redirect_uris: ['https://reports.example/cb'] };
    const a = appIdentity({ ...body, client_id: 'gh_a', registration: 'admin' });
    const b = appIdentity({ ...body, client_id: 'gh_b', registration: 'admin' });
    expect(a.key).toBe('admin:gh_a');
    expect(b.key).toBe('admin:gh_b');
    expect(a.marks).toEqual(['host:reports.example']);
    expect(a.evidence).toEqual({ kind: 'admin', clientId: 'gh_a', hosts: ['reports.example'], schemes: [] });
    // A dynamic registration copying it is not it.
    expect(identity(body).key).not.toBe(a.key);
  });
});

describe('hostile input', () => {
  const hostile: unknown[] = [
    null,
    undefined,
    42,
    'text',
    [],
    {},
    { client_id: null, registration: null },
    { client_id: 1, registration: 'admin', redirect_uris: 'https://a.example' },
    { client_id: 'x', registration: 'metadata_document' },
    { client_id: '', registration: 'metadata_document' },
    { client_id: 'x', registration: 'dynamic', redirect_uris: [1, null, {}, [], 'not a url', 'https://', '::', `https://${'a'.repeat(5000)}.example/`] },
    { client_id: 'x', registration: 'dynamic', redirect_uris: Array.from({ length: 100_000 }, (_, index) => `https://h${index % 50}.example/cb`) },
    { client_id: 'x', registration: 'dynamic', client_name: { toString: 1 }, software_id: ['a'], client_uri: 42 },
    { client_id: 'x', registration: 'dynamic', client_name: 'x'.repeat(100_000) },
    { client_id: 'x', registration: 'dynamic', client_name: '\u202eedoC\u0000\ud800', redirect_uris: ['https://xn--80ak6aa92e.com/cb', 'https://пример.рф/cb', 'https://[::2]/cb'] },
    JSON.parse('{"__proto__": {"client_name": "Injected"}, "client_id": "x", "registration": "dynamic", "redirect_uris": ["http://localhost/cb"]}'),
    Object.create({ client_name: 'Inherited', redirect_uris: ['https://inherited.example/cb'], client_id: 'x', registration: 'dynamic' }),
    { constructor: 'x', toString: 'y', hasOwnProperty: 'z', client_id: 'x', registration: 'dynamic', redirect_uris: ['http://localhost/cb'] },
  ];

  it.each(hostile.map((value, index) => [index, value] as const))('never throws (%i)', (_index, value) => {
    const app = appIdentity(value as RegistrationFacts);
    expect(typeof app.key).toBe('string');
    expect(app.key.length).toBeGreaterThan(0);
    expect(typeof app.displayName).toBe('string');
    expect(Array.isArray(app.marks)).toBe(true);
    expect(() => JSON.stringify(app.evidence)).not.toThrow();
  });

  it('reads only own properties, never the prototype', () => {
    const injected = appIdentity(hostile[15] as RegistrationFacts);
    expect(injected.displayName).not.toBe('Injected');
    const inherited = appIdentity(hostile[16] as RegistrationFacts);
    expect(inherited.marks).toEqual([]);
    expect(inherited.displayName).not.toBe('Inherited');
  });

  it('collapses a huge list to its distinct hosts', () => {
    expect(appIdentity(hostile[11] as RegistrationFacts).marks).toHaveLength(50);
  });
});
