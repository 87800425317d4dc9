// The Compose `replicas` profile without Docker: its reverse proxy (deploy/nginx.conf, run by a real nginx)
// in front of two instances configured as the profile configures them (one PUBLIC_URL: the proxy's;
// TRUST_PROXY; one secret, database and Redis). Only Docker's own part — building the image, service DNS —
// is left out: the upstream names become local ports, and an access log records which instance answered.
// Everything a person and a client do goes through the proxy, with no session affinity, and when one
// instance stops the proxy sends everything to the other without losing a request.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { createPostgresDatabase, type PostgresDatabase } from '../helpers/databases';
import { postMcp, rpc } from '../helpers/mcp';
import { connect, register, tokenRequest } from '../helpers/oauth';
import { freePort, startServer, stopProcess, TEST_DEMO_PASSWORD, type RunningServer } from '../helpers/server';
import { callServerAction } from '../helpers/server-actions';
import { signIn } from '../helpers/session';

const NGINX = '/usr/sbin/nginx';
const REDIS = process.env.TEST_REDIS_URL;
const owner = { email: 'owner@acme.test', password: TEST_DEMO_PASSWORD };

/** deploy/nginx.conf with the replicas' service names as local ports, and an access log of upstreams. */
function proxyConfig(listen: number, replicas: [number, number], accessLog: string): string {
  const original = readFileSync(join(process.cwd(), 'deploy', 'nginx.conf'), 'utf8');
  const config = original
    .replace('server replica-1:3000', `server 127.0.0.1:${replicas[0]}`)
    .replace('server replica-2:3000', `server 127.0.0.1:${replicas[1]}`)
    .replace('listen 8080;', `listen 127.0.0.1:${listen};`)
    .replace('http {', `http {\n  log_format upstreams '$request_method $uri $status $upstream_addr';\n  access_log ${accessLog} upstreams;`);
  // The test must fail if the profile's file changes shape, not quietly run another configuration.
  for (const expected of [`127.0.0.1:${replicas[0]}`, `127.0.0.1:${replicas[1]}`, `127.0.0.1:${listen};`, 'log_format upstreams']) {
    expect(config, 'deploy/nginx.conf no longer has the shape this test adapts').toContain(expected);
  }
  return config;
}

async function startNginx(config: string, dir: string): Promise<ChildProcess> {
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, config);
  const child = spawn(NGINX, ['-p', dir, '-c', file, '-e', join(dir, 'error.log'), '-g', `daemon off; pid ${join(dir, 'nginx.pid')};`], { stdio: 'ignore' });
  return child;
}

describe.runIf(Boolean(existsSync(NGINX) && process.env.TEST_DATABASE_URL && REDIS))('the replicas profile: two instances behind its nginx', () => {
  let database: PostgresDatabase;
  let replicas: [RunningServer, RunningServer];
  let nginx: ChildProcess;
  let dir: string;
  let url: string;
  const accessLog = () => readFileSync(join(dir, 'access.log'), 'utf8').trim().split('\n');
  const answeredBy = (lines: string[]) => new Set(lines.map((line) => line.split(' ').at(-1)));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-nginx-'));
    database = await createPostgresDatabase();
    const [proxyPort, firstPort, secondPort] = [await freePort(), await freePort(), await freePort()];
    url = `http://localhost:${proxyPort}`;
    // The budget is raised so that the failover test's steady stream of calls is never refused for it.
    const env = { PUBLIC_URL: url, TRUST_PROXY: 'true', AUTH_SECRET: randomBytes(32).toString('base64url'), REDIS_URL: REDIS!, MCP_RATE_LIMIT_PER_MINUTE: '100000' };
    replicas = (await Promise.all([
      startServer({ database: 'postgres', postgres: database, env, port: firstPort }),
      startServer({ database: 'postgres', postgres: database, env, port: secondPort }),
    ])) as [RunningServer, RunningServer];
    expect((await runCli('prisma/seed.ts', [], replicas[0].env)).stdout).toMatch(/Demo data created/);
    nginx = await startNginx(proxyConfig(proxyPort, [firstPort, secondPort], join(dir, 'access.log')), dir);
    const deadline = Date.now() + 15_000;
    while (
      !(await fetch(`${url}/readyz`).then(
        (response) => response.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error(`nginx did not answer: ${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  afterAll(async () => {
    if (nginx) await stopProcess(nginx);
    await Promise.all(replicas?.map((replica) => replica.stop()) ?? []);
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('advertises the proxy as the issuer and the resource, whichever instance answers', async () => {
    for (let index = 0; index < 4; index++) {
      const metadata = (await (await fetch(`${url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string; token_endpoint: string };
      expect(metadata.issuer).toBe(url);
      expect(metadata.token_endpoint).toBe(`${url}/oauth/token`);
      const resource = (await (await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string };
      expect(resource.resource).toBe(`${url}/mcp`);
    }
    expect(answeredBy(accessLog())).toEqual(new Set(replicas.map((replica) => `127.0.0.1:${replica.port}`)));
  });

  it('runs registration, sign-in, consent, token exchange, refresh and /mcp through the proxy, spread over both instances', async () => {
    const before = accessLog().length;
    const client = await register(url, { client_name: 'Behind the proxy', redirect_uris: ['https://proxied.example/cb'] });
    const { tokens } = await connect(url, client, owner);
    const calls = await Promise.all(Array.from({ length: 20 }, () => postMcp(url, tokens.access_token, rpc('tools/call', { name: 'whoami', arguments: {} }))));
    expect(calls.map((call) => call.status)).toEqual(Array(20).fill(200));
    expect(calls[0]!.text).toContain('owner@acme.test');
    const refreshed = await tokenRequest(url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    expect(refreshed.response.status).toBe(200);
    expect((await postMcp(url, refreshed.body.access_token!, rpc('ping'))).status).toBe(200);
    const flow = accessLog().slice(before);
    expect(
      flow.every((line) => !/ 5\d\d /.test(line)),
      flow.join('\n'),
    ).toBe(true);
    expect(answeredBy(flow.filter((line) => line.startsWith('POST /mcp ')))).toEqual(new Set(replicas.map((replica) => `127.0.0.1:${replica.port}`)));
  });

  it('accepts console actions through the proxy (the Origin matches the forwarded Host) and refuses another site', async () => {
    const { jar, response } = await signIn(url, owner.email, owner.password);
    expect(response.status).toBe(200);
    const action = { file: 'app/admin/[org]/tools/actions.ts', name: 'setToolRestrictedAction' };
    for (let index = 0; index < 4; index++) {
      const call = await callServerAction(url, jar, action, ['acme', { tool: 'whoami', restricted: index % 2 === 0 }], '/admin/acme');
      expect(call.status, call.body.slice(0, 300)).toBe(200);
      expect(call.result).toMatchObject({ ok: true });
    }
    const crossSite = await callServerAction(url, jar, action, ['acme', { tool: 'whoami', restricted: true }], '/admin/acme', 'https://evil.example');
    expect(crossSite.status).toBe(403);
    expect(crossSite.result).toBeUndefined();
  });

  it('sends every request to the other instance when one stops under load, losing none', async () => {
    const client = await register(url, { client_name: 'Failover', redirect_uris: ['https://failover.example/cb'] });
    const { tokens } = await connect(url, client, owner);
    const before = accessLog().length;
    // Four callers keep /mcp busy through the proxy while the second instance is stopped (SIGTERM: it
    // drains what it has and refuses new connections, and the proxy moves on to the first).
    let stopping = true;
    const statuses: number[] = [];
    const caller = async () => {
      while (stopping) statuses.push((await postMcp(url, tokens.access_token, rpc('ping'))).status);
    };
    const callers = Array.from({ length: 4 }, caller);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await replicas[1].halt();
    await new Promise((resolve) => setTimeout(resolve, 500));
    stopping = false;
    await Promise.all(callers);
    expect(statuses.length).toBeGreaterThan(20);
    expect(
      statuses.filter((status) => status !== 200),
      `${statuses.length} calls`,
    ).toEqual([]);
    const refreshed = await tokenRequest(url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    expect(refreshed.response.status).toBe(200);
    const during = accessLog().slice(before);
    expect(answeredBy(during)).toEqual(new Set(replicas.map((replica) => `127.0.0.1:${replica.port}`)));
  });
});
