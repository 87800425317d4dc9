// Gatehouse's configuration: every environment variable it reads, validated once at start-up.
// A bad value stops the process with a message naming the variable (see ConfigError).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { processSingleton } from '@/lib/server/process-singleton';

export const DEFAULT_DEMO_PASSWORD = 'gatehouse-demo';
export const MIN_SECRET_LENGTH = 32;

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    HOST: z.string().min(1).optional(),
    PUBLIC_URL: z
      .string()
      .optional()
      .refine((value) => value === undefined || parseOrigin(value) !== null, {
        message: 'must be an http(s) origin such as https://auth.example.com (no path, query or fragment)',
      }),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
      .optional(),
    DATA_DIR: z.string().min(1).default('./.data'),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
      .optional(),
    AUTH_SECRET: z
      .string()
      .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters (try: openssl rand -base64 48)`)
      .optional(),
    TRUST_PROXY: booleanFlag.default(false),
    DEMO_PASSWORD: z.string().min(8, 'must be at least 8 characters').default(DEFAULT_DEMO_PASSWORD),
    CIMD: z.enum(['on', 'off']).default('on'),
    REGISTRATION_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(60),
    MCP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(10_000_000).default(120),
    MCP_UNAUTHENTICATED_RATE_LIMIT: z.coerce.number().int().min(1).max(10_000_000).default(60),
    SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
    KEY_RELOAD_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
    CALL_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    MCP_ALLOWED_ORIGINS: z
      .string()
      .transform((value) => value.split(',').map((origin) => origin.trim()).filter(Boolean))
      .refine((origins) => origins.every((origin) => /^https?:\/\/[^/]+$/.test(origin)), 'must be comma-separated origins such as https://app.example')
      .optional(),
    OAUTH_SIGNING_KEYS: z
      .string()
      .transform((value, ctx) => {
        try {
          const keys = JSON.parse(value) as unknown;
          const list = Array.isArray(keys) ? keys : (keys as { keys?: unknown }).keys;
          if (!Array.isArray(list) || !list.some((key) => (key as { kty?: string }).kty === 'RSA' && (key as { d?: string }).d)) {
            throw new Error('no private RSA key');
          }
          return list as Record<string, unknown>[];
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a JSON array (or JWKS) of private JWKs including an RSA key' });
          return z.NEVER;
        }
      })
      .optional(),
    SMTP_URL: z
      .string()
      .optional()
      .refine((value) => value === undefined || isSmtpUrl(value), {
        message: 'must be an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587',
      }),
    SMTP_FROM: z
      .string()
      .regex(/^(?:[^<>\r\n]*<[^<>\s@]+@[^<>\s@]+>|[^<>\s@]+@[^<>\s@]+)$/, 'must be an address such as gatehouse@example.com or "Gatehouse <gatehouse@example.com>"')
      .optional(),
    OAUTH_COOKIE_KEYS: z
      .string()
      .transform((value) => value.split(',').map((key) => key.trim()).filter(Boolean))
      .refine((keys) => keys.length > 0 && keys.every((key) => key.length >= 32), 'must be comma-separated secrets of at least 32 characters')
      .optional(),
  })
  .superRefine((value, ctx) => {
    if (Boolean(value.OAUTH_SIGNING_KEYS) !== Boolean(value.OAUTH_COOKIE_KEYS)) {
      ctx.addIssue({ code: 'custom', path: ['OAUTH_SIGNING_KEYS'], message: 'and OAUTH_COOKIE_KEYS must be given together' });
    }
    if (Boolean(value.SMTP_URL) !== Boolean(value.SMTP_FROM)) {
      ctx.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'and SMTP_FROM must be given together' });
    }
    if (value.DATABASE_URL && !value.AUTH_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['AUTH_SECRET'],
        message:
          'is required when DATABASE_URL is set: every instance must share it (try: openssl rand -base64 48)',
      });
    }
  });

export type Env = {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  /** The address to listen on. */
  host: string;
  /** The public origin, no trailing slash: the OAuth issuer and the base of every URL Gatehouse prints. */
  publicUrl: string;
  database: { kind: 'postgres'; url: string } | { kind: 'embedded'; dataDir: string };
  /** Absolute path; also holds the embedded database and its generated AUTH_SECRET. */
  dataDir: string;
  redisUrl: string | null;
  authSecret: string;
  /** Honour X-Forwarded-For / X-Forwarded-Proto from a reverse proxy in front of Gatehouse. */
  trustProxy: boolean;
  demoPassword: string;
  /** Client ID Metadata Documents: accept https URLs as client_id (needs outbound HTTPS). */
  cimd: boolean;
  /** Client registrations allowed per IP address per minute. */
  registrationRateLimit: number;
  /** /mcp requests per grant per minute (SPEC §6: 120). */
  mcpRateLimitPerMinute: number;
  /** /mcp requests refused for want of a valid access token, per client address per minute (per instance); then 429. */
  mcpUnauthenticatedRateLimit: number;
  /** How often expired rows and unused clients are removed. */
  sweepIntervalMs: number;
  /** How often each instance checks the stored keys and picks up a rotation (no restart needed). */
  keyReloadMs: number;
  /** Days the /mcp call log is kept. */
  callLogRetentionDays: number;
  /** Browser origins allowed to call /mcp besides PUBLIC_URL's and loopback ones. */
  mcpAllowedOrigins: string[];
  /** Keys given in the environment instead of generated and stored in the database. */
  signingKeys: Record<string, unknown>[] | null;
  cookieKeys: string[] | null;
  /** Where invitation and reset links are emailed from; null: they are only shown to the admin and logged. */
  smtp: { url: string; from: string } | null;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses an environment (process.env by default) into a validated Env. Throws ConfigError. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // Empty strings mean "unset" (docker-compose writes VAR= for optional variables).
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'} ${issue.message}`),
    );
  }
  const raw = parsed.data;
  const dataDir = resolve(raw.DATA_DIR);
  const database = raw.DATABASE_URL
    ? ({ kind: 'postgres', url: raw.DATABASE_URL } as const)
    : ({ kind: 'embedded', dataDir: join(dataDir, 'pgdata') } as const);
  const publicUrl = raw.PUBLIC_URL ? (parseOrigin(raw.PUBLIC_URL) as string) : `http://localhost:${raw.PORT}`;
  return {
    nodeEnv: raw.NODE_ENV,
    port: raw.PORT,
    // A server whose public URL is on loopback (the demo) is not exposed to the network unless asked.
    host: raw.HOST ?? (isLoopbackHost(new URL(publicUrl).hostname) ? '127.0.0.1' : '0.0.0.0'),
    publicUrl,
    database,
    dataDir,
    redisUrl: raw.REDIS_URL ?? null,
    authSecret: raw.AUTH_SECRET ?? embeddedAuthSecret(dataDir),
    trustProxy: raw.TRUST_PROXY,
    demoPassword: raw.DEMO_PASSWORD,
    cimd: raw.CIMD === 'on',
    registrationRateLimit: raw.REGISTRATION_RATE_LIMIT,
    mcpRateLimitPerMinute: raw.MCP_RATE_LIMIT_PER_MINUTE,
    mcpUnauthenticatedRateLimit: raw.MCP_UNAUTHENTICATED_RATE_LIMIT,
    sweepIntervalMs: raw.SWEEP_INTERVAL_SECONDS * 1000,
    keyReloadMs: raw.KEY_RELOAD_SECONDS * 1000,
    callLogRetentionDays: raw.CALL_LOG_RETENTION_DAYS,
    mcpAllowedOrigins: raw.MCP_ALLOWED_ORIGINS ?? [],
    signingKeys: raw.OAUTH_SIGNING_KEYS ?? null,
    cookieKeys: raw.OAUTH_COOKIE_KEYS ?? null,
    smtp: raw.SMTP_URL && raw.SMTP_FROM ? { url: raw.SMTP_URL, from: raw.SMTP_FROM } : null,
  };
}

/** The process's configuration, parsed on first use. */
export function env(): Env {
  return processSingleton('env', () => parseEnv());
}

export function isLoopbackHost(hostname: string): boolean {
  return ['localhost', '::1', '[::1]'].includes(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function parseOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) return null;
  return url.origin;
}

/**
 * With the embedded database there is nobody to configure a secret, so Gatehouse makes one on first
 * start and keeps it beside the data it protects (file mode 0600).
 */
function embeddedAuthSecret(dataDir: string): string {
  const file = join(dataDir, 'auth-secret');
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    if (secret.length >= MIN_SECRET_LENGTH) return secret;
    throw new ConfigError([`AUTH_SECRET in ${file} is shorter than ${MIN_SECRET_LENGTH} characters`]);
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return embeddedAuthSecret(dataDir);
    throw error;
  }
  chmodSync(file, 0o600);
  return secret;
}
