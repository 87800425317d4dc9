import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_DEMO_PASSWORD, parseEnv } from '@/lib/env';

const tempDir = () => mkdtempSync(join(tmpdir(), 'gatehouse-env-'));

function problems(source: Record<string, string>): string[] {
  try {
    parseEnv(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('defaults to the embedded database on port 3000 with PUBLIC_URL on localhost', () => {
    const dataDir = tempDir();
    const env = parseEnv({ DATA_DIR: dataDir });
    expect(env.port).toBe(3000);
    expect(env.publicUrl).toBe('http://localhost:3000');
    expect(env.database).toEqual({ kind: 'embedded', dataDir: join(dataDir, 'pgdata') });
    expect(env.host).toBe('127.0.0.1');
    expect(env.trustProxy).toBe(false);
    expect(env.redisUrl).toBeNull();
    expect(env.demoPassword).toBe(DEFAULT_DEMO_PASSWORD);
  });

  it('takes the /mcp budget per grant from MCP_RATE_LIMIT_PER_MINUTE, 120 by default', () => {
    expect(parseEnv({ DATA_DIR: tempDir() }).mcpRateLimitPerMinute).toBe(120);
    expect(parseEnv({ DATA_DIR: tempDir(), MCP_RATE_LIMIT_PER_MINUTE: '100000' }).mcpRateLimitPerMinute).toBe(100_000);
    expect(problems({ DATA_DIR: tempDir(), MCP_RATE_LIMIT_PER_MINUTE: '0' }).join()).toContain('MCP_RATE_LIMIT_PER_MINUTE');
  });

  it('takes the per-address budget of /mcp requests without a valid token from MCP_UNAUTHENTICATED_RATE_LIMIT, 60 by default', () => {
    expect(parseEnv({ DATA_DIR: tempDir() }).mcpUnauthenticatedRateLimit).toBe(60);
    expect(parseEnv({ DATA_DIR: tempDir(), MCP_UNAUTHENTICATED_RATE_LIMIT: '5000' }).mcpUnauthenticatedRateLimit).toBe(5000);
    expect(problems({ DATA_DIR: tempDir(), MCP_UNAUTHENTICATED_RATE_LIMIT: 'many' }).join()).toContain('MCP_UNAUTHENTICATED_RATE_LIMIT');
  });

  it('derives the default PUBLIC_URL from PORT', () => {
    expect(parseEnv({ DATA_DIR: tempDir(), PORT: '4100' }).publicUrl).toBe('http://localhost:4100');
  });

  it('strips the trailing slash from PUBLIC_URL and listens on every interface for a public host', () => {
    const env = parseEnv({ DATA_DIR: tempDir(), PUBLIC_URL: 'https://Auth.Example.com/' });
    expect(env.publicUrl).toBe('https://auth.example.com');
    expect(env.host).toBe('0.0.0.0');
  });

  it.each([
    ['PUBLIC_URL', 'auth.example.com'],
    ['PUBLIC_URL', 'ftp://auth.example.com'],
    ['PUBLIC_URL', 'https://auth.example.com/gatehouse'],
    ['PUBLIC_URL', 'https://auth.example.com/?x=1'],
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['REDIS_URL', 'localhost:6379'],
    ['TRUST_PROXY', 'maybe'],
    ['AUTH_SECRET', 'short'],
    ['DEMO_PASSWORD', 'short'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    const found = problems({ DATA_DIR: tempDir(), [name]: value });
    expect(found.some((problem) => problem.startsWith(`${name} `))).toBe(true);
  });

  it('requires AUTH_SECRET with DATABASE_URL', () => {
    const found = problems({ DATABASE_URL: 'postgresql://localhost/gatehouse' });
    expect(found).toEqual([expect.stringMatching(/^AUTH_SECRET is required when DATABASE_URL is set/)]);
  });

  it('uses PostgreSQL when DATABASE_URL and AUTH_SECRET are set', () => {
    const secret = 'x'.repeat(40);
    const env = parseEnv({ DATABASE_URL: 'postgres://db:5432/gatehouse', AUTH_SECRET: secret, TRUST_PROXY: 'true' });
    expect(env.database).toEqual({ kind: 'postgres', url: 'postgres://db:5432/gatehouse' });
    expect(env.authSecret).toBe(secret);
    expect(env.trustProxy).toBe(true);
  });

  it('treats empty variables as unset', () => {
    const env = parseEnv({ DATA_DIR: tempDir(), REDIS_URL: '', PUBLIC_URL: '', DATABASE_URL: '' });
    expect(env.redisUrl).toBeNull();
    expect(env.database.kind).toBe('embedded');
  });

  it('generates the embedded AUTH_SECRET once, keeps it private in DATA_DIR and reuses it', () => {
    const dataDir = tempDir();
    const first = parseEnv({ DATA_DIR: dataDir }).authSecret;
    const file = join(dataDir, 'auth-secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(parseEnv({ DATA_DIR: dataDir }).authSecret).toBe(first);
  });
});

// SMTP_URL and SMTP_FROM: optional, both or neither, validated at start-up like every other variable.
describe('SMTP configuration', () => {
  it('is off by default: links are shown to the admin and logged', () => {
    expect(parseEnv({ DATA_DIR: tempDir() }).smtp).toBeNull();
  });

  it('accepts an smtp:// or smtps:// URL with a sender', () => {
    const from = 'Gatehouse <gatehouse@example.com>';
    expect(parseEnv({ ...{ DATA_DIR: tempDir() }, SMTP_URL: 'smtp://user:pa%40ss@mail.example.com:587', SMTP_FROM: from }).smtp).toEqual({
      url: 'smtp://user:pa%40ss@mail.example.com:587',
      from,
    });
    expect(parseEnv({ ...{ DATA_DIR: tempDir() }, SMTP_URL: 'smtps://mail.example.com', SMTP_FROM: 'gatehouse@example.com' }).smtp?.from).toBe('gatehouse@example.com');
  });

  it.each([
    ['SMTP_URL', 'mail.example.com:587'],
    ['SMTP_URL', 'https://mail.example.com'],
    ['SMTP_FROM', 'not an address'],
    ['SMTP_FROM', 'Gatehouse <gatehouse@example.com>\r\nBcc: someone@example.com'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    const other: Record<string, string> = name === 'SMTP_URL' ? { SMTP_FROM: 'gatehouse@example.com' } : { SMTP_URL: 'smtp://mail.example.com' };
    expect(problems({ ...{ DATA_DIR: tempDir() }, ...other, [name]: value }).some((problem) => problem.startsWith(`${name} `))).toBe(true);
  });

  it('needs both variables, and never repeats the password in its message', () => {
    const found = problems({ ...{ DATA_DIR: tempDir() }, SMTP_URL: 'smtp://user:secret-password@mail.example.com' });
    expect(found).toEqual(['SMTP_URL and SMTP_FROM must be given together']);
    expect(problems({ ...{ DATA_DIR: tempDir() }, SMTP_FROM: 'gatehouse@example.com' })).toEqual(['SMTP_URL and SMTP_FROM must be given together']);
    expect(problems({ ...{ DATA_DIR: tempDir() }, SMTP_URL: 'ftp://user:secret-password@x', SMTP_FROM: 'a@b.c' }).join('\n')).not.toContain('secret-password');
  });
});
