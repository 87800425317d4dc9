// The running server on each database: health, discovery through the mounted OAuth provider, people
// signing in and out, and the demo data rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, withAdmin } from '../helpers/databases';
import { runCli } from '../helpers/cli';
import { inspectDatabase } from '../helpers/inspect';
import { signIn, signOut } from '../helpers/session';
import { startServer, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';

describe.each(DATABASES)('Gatehouse on the %s database', (kind) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ database: kind, seedPostgres: false });
    if (kind === 'postgres') {
      // PostgreSQL is never seeded on its own: the operator asks for demo data with a password of their own.
      const seeded = await runCli('prisma/seed.ts', [], server.env);
      expect(seeded.stderr).toBe('');
      expect(seeded.stdout).toMatch(/Demo data created/);
    }
  });
  afterAll(async () => server?.stop());

  it('answers /healthz and /readyz', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'ok' });
  });

  it('serves the OpenID configuration from the mounted provider, with issuer = PUBLIC_URL', async () => {
    const response = await fetch(`${server.url}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(server.url);
    for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'revocation_endpoint']) {
      expect(String(metadata[field])).toMatch(new RegExp(`^${server.url}/oauth/`));
    }
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('never lets a forged Host or X-Forwarded-Host change the issuer', async () => {
    const response = await fetch(`${server.url}/.well-known/openid-configuration`, {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    const metadata = (await response.json()) as { issuer: string; token_endpoint: string };
    expect(metadata.issuer).toBe(server.url);
    expect(metadata.token_endpoint).toBe(`${server.url}/oauth/token`);
  });

  it('publishes RSA and EC public keys, and no private part of them', async () => {
    const { keys } = (await (await fetch(`${server.url}/oauth/jwks`)).json()) as { keys: Record<string, string>[] };
    expect(keys.map((key) => key.kty).sort()).toEqual(['EC', 'RSA']);
    for (const key of keys) expect(key).not.toHaveProperty('d');
  });

  it('signs a demo person in and shows who they are and their organizations with roles', async () => {
    const { jar, response } = await signIn(server.url, 'owner@acme.test', TEST_DEMO_PASSWORD);
    expect(response.status).toBe(200);
    expect(jar.has('next-auth.session-token')).toBe(true);
    const home = await jar.fetch(`${server.url}/`);
    expect(home.status).toBe(200);
    const html = await home.text();
    expect(html).toContain('Olivia Owner');
    expect(html).toContain('owner@acme.test');
    expect(html).toContain('Instance admin');
    expect(html).toMatch(/Acme.*Owner/s);
    expect(html).toMatch(/Initech.*Member/s);
  });

  it('accepts the email in any case', async () => {
    const { response } = await signIn(server.url, 'Viewer@ACME.test', TEST_DEMO_PASSWORD);
    expect(response.status).toBe(200);
  });

  it('answers a wrong password and an unknown email identically', async () => {
    const wrong = await signIn(server.url, 'member@acme.test', 'not the password');
    const unknown = await signIn(server.url, 'nobody@acme.test', 'not the password');
    expect(wrong.response.status).toBe(401);
    expect(unknown.response.status).toBe(401);
    expect(await wrong.response.json()).toEqual(await unknown.response.json());
    expect(wrong.jar.has('next-auth.session-token')).toBe(false);
  });

  it('sends signed-out people to /login, and signing out ends the session', async () => {
    const anonymous = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect(anonymous.status).toBe(307);
    expect(anonymous.headers.get('location')).toMatch(/\/login$/);

    const { jar } = await signIn(server.url, 'member@acme.test', TEST_DEMO_PASSWORD);
    expect((await jar.fetch(`${server.url}/`)).status).toBe(200);
    expect((await signOut(server.url, jar)).status).toBe(200);
    expect(jar.has('next-auth.session-token')).toBe(false);
    expect((await jar.fetch(`${server.url}/`)).status).toBe(307);
  });

  it('never seeds a database that already has people', async () => {
    const again = await runCli('prisma/seed.ts', [], server.env);
    if (kind === 'embedded') {
      // The running server owns the embedded database: a second process is told so and stops.
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/in use by another Gatehouse process/);
    } else {
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/Nothing seeded: the database already has people/);
    }
  });

  if (kind !== 'postgres') return;

  it('refuses to seed PostgreSQL with the default demo password', async () => {
    const { DEMO_PASSWORD: _, ...withoutPassword } = server.env;
    const result = await runCli('prisma/seed.ts', [], withoutPassword);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Refusing to seed demo people with the default password/);
  });

  it('reports 503 on /readyz while the database refuses connections, then recovers', async () => {
    const admin = process.env.TEST_DATABASE_URL as string;
    const name = server.postgres!.name;
    await withAdmin(admin, async (client) => {
      await client.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
      await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    });
    try {
      const down = await fetch(`${server.url}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ status: 'unavailable', database: 'unreachable' });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await withAdmin(admin, (client) => client.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS true`));
    }
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  // Last: it spends this address's budget of failed sign-ins.
  it('locks an account after 10 failed sign-ins in a row: even the right password is refused, and an unknown email looks the same', async () => {
    // A success in between starts the count again.
    for (let attempt = 0; attempt < 9; attempt++) await signIn(server.url, 'viewer@acme.test', `early ${attempt}`);
    expect((await signIn(server.url, 'viewer@acme.test', TEST_DEMO_PASSWORD)).response.status).toBe(200);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 10; attempt++) statuses.push((await signIn(server.url, 'viewer@acme.test', `wrong ${attempt}`)).response.status);
    expect(statuses).toEqual(Array(10).fill(401));
    const blocked = await signIn(server.url, 'viewer@acme.test', TEST_DEMO_PASSWORD);
    expect(blocked.response.status).toBe(401);
    const lockedBody = await blocked.response.json();
    expect(JSON.stringify(lockedBody)).toContain('TooManyAttempts');
    expect(blocked.jar.has('next-auth.session-token')).toBe(false);

    for (let attempt = 0; attempt < 10; attempt++) await signIn(server.url, 'nobody-here@acme.test', `wrong ${attempt}`);
    const unknown = await signIn(server.url, 'nobody-here@acme.test', 'anything');
    expect(await unknown.response.json()).toEqual(lockedBody);

    // The lock is on the account's row — shared by every instance, lifted by an admin — and audited.
    const inspected = await inspectDatabase(server, async (query) => ({
      person: (
        await query<{ failed_sign_ins: number; minutes: number }>(
          `SELECT failed_sign_ins, round(extract(epoch FROM locked_until - now()) / 60)::int AS minutes FROM people WHERE email = 'viewer@acme.test'`,
        )
      )[0],
      events: await query(`SELECT a.type FROM audit_events a WHERE a.type = 'person.locked'`),
    }));
    server = inspected.server;
    const result = inspected.result;
    expect(result.person).toEqual({ failed_sign_ins: 10, minutes: 15 });
    expect(result.events).toHaveLength(1);
  });
});
