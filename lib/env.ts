// Gatehouse's configuration: every environment variable it reads, validated once at start-up.
// A bad value stops the process with a message naming the variable (see ConfigError).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { processSingleton } from '@/lib/server/process-singleton';

export const DEFAULT_DEMO_PASSWORD = 'gatehouse-demo';
export const MIN_SECRET_LENGTH = 32;

const booleanFlag = z.enum(['true', 'false', '1', '0', 'yes', 'no', '']).transform((value) => value === 'true' || value === '1' || value === 'yes');

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
    AUTH_SECRET: z.string().min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters (try: openssl rand -base64 48)`).optional(),
    TRUST_PROXY: booleanFlag.default(false),
    DEMO_PASSWORD: z.string().min(8, 'must be at least 8 characters').default(DEFAULT_DEMO_PASSWORD),
    CIMD: z.enum(['on', 'off']).default('on'),
    REGISTRATION_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(60),
    MCP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(10_000_000).default(120),
    MCP_UNAUTHENTICATED_RATE_LIMIT: z.coerce.number().int().min(1).max(10_000_000).default(60),
    SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
    CONNECTOR_REFRESH_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
    // At least 1 KiB (an answer must fit), at most 64 MiB: the heap is 256 MB, and a few answers in flight
    // are parsed at once.
    CONNECTOR_MAX_RESULT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(4 * 1024 * 1024),
    KEY_RELOAD_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
    CALL_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    MCP_ALLOWED_ORIGINS: z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((origin) => origin.trim())
          .filter(Boolean),
      )
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
      .transform((value) =>
        value
          .split(',')
          .map((key) => key.trim())
          .filter(Boolean),
      )
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
        message: 'is required when DATABASE_URL is set: every instance must share it (try: openssl rand -base64 48)',
      });
    }
  });

/** The variables the schema above validates, in its order. */
export const VALIDATED_VARIABLES = Object.keys(schema.shape);

/**
 * What each variable means, written once: the README's configuration table is generated from this list
 * (`npm run docs:readme`, checked by tests/unit/readme.test.ts). `readBy` says who reads a variable: the
 * server (validated by the schema above), the npm tools only, or the tests only.
 */
export type ConfigurationEntry = {
  name: string;
  default: string;
  description: string;
  readBy: 'server' | 'tools' | 'tests';
};

export const CONFIGURATION: readonly ConfigurationEntry[] = [
  { name: 'PORT', default: '`3000`', readBy: 'server', description: 'Port to listen on.' },
  {
    name: 'HOST',
    default: '`127.0.0.1` if `PUBLIC_URL` is on loopback, else `0.0.0.0`',
    readBy: 'server',
    description: 'Address to listen on: the demo is not exposed to the network unless you ask.',
  },
  {
    name: 'PUBLIC_URL',
    default: '`http://localhost:$PORT`',
    readBy: 'server',
    description:
      'The origin people and clients use (no path): the OAuth `issuer` and the base of every URL. Request headers never change it. `https://` makes cookies `Secure`; cloud clients need a public `https://` one.',
  },
  {
    name: 'DATABASE_URL',
    default: '*(embedded)*',
    readBy: 'server',
    description: '`postgresql://…`. Unset: PostgreSQL embedded in the process (PGlite), kept in `DATA_DIR`.',
  },
  {
    name: 'DATA_DIR',
    default: '`./.data`',
    readBy: 'server',
    description: 'The embedded database and its generated secret; one process at a time.',
  },
  {
    name: 'AUTH_SECRET',
    default: '*(embedded: generated into `DATA_DIR`)*',
    readBy: 'server',
    description: 'At least 32 characters, **required with `DATABASE_URL`**, the same on every instance: signs sessions and seals the stored keys (`openssl rand -base64 48`).',
  },
  {
    name: 'REDIS_URL',
    default: '*(unset)*',
    readBy: 'server',
    description: '`redis://…`: instances share the `/mcp` budgets through it; while it is unreachable each counts its own.',
  },
  {
    name: 'TRUST_PROXY',
    default: '`false`',
    readBy: 'server',
    description: "`true` behind a reverse proxy: the client address is the proxy's last `X-Forwarded-For` hop.",
  },
  {
    name: 'MCP_ALLOWED_ORIGINS',
    default: '*(unset)*',
    readBy: 'server',
    description: "Comma-separated browser origins allowed to call `/mcp` besides `PUBLIC_URL`'s and loopback.",
  },
  {
    name: 'MCP_RATE_LIMIT_PER_MINUTE',
    default: '`120`',
    readBy: 'server',
    description: '`/mcp` requests per grant per minute, then 429 with `Retry-After`.',
  },
  {
    name: 'MCP_UNAUTHENTICATED_RATE_LIMIT',
    default: '`60`',
    readBy: 'server',
    description: '`/mcp` requests without a valid token per client address per minute (per instance), then 429.',
  },
  {
    name: 'REGISTRATION_RATE_LIMIT',
    default: '`60`',
    readBy: 'server',
    description: 'Client registrations per IP address per minute (per instance). Claude registers twice per connection.',
  },
  {
    name: 'CIMD',
    default: '`on`',
    readBy: 'server',
    description: '`off` stops accepting and advertising Client ID Metadata Documents (no outbound HTTPS).',
  },
  {
    name: 'CALL_LOG_RETENTION_DAYS',
    default: '`30`',
    readBy: 'server',
    description: 'Days the `/mcp` call log is kept.',
  },
  {
    name: 'SWEEP_INTERVAL_SECONDS',
    default: '`600`',
    readBy: 'server',
    description: 'How often expired records, old call-log rows and clients unused for 24 h are removed (one instance sweeps).',
  },
  {
    name: 'CONNECTOR_REFRESH_SECONDS',
    default: '`300`',
    readBy: 'server',
    description: "How often connectors' tool catalogs are read again (one instance refreshes); changed and new tools are held until approved.",
  },
  {
    name: 'CONNECTOR_MAX_RESULT_BYTES',
    default: '`4194304`',
    readBy: 'server',
    description: "The most bytes of one connector tool's answer Gatehouse reads, counted while it streams in; a larger one is refused in band.",
  },
  {
    name: 'KEY_RELOAD_SECONDS',
    default: '`60`',
    readBy: 'server',
    description: 'How often each instance picks up rotated signing and cookie keys, without a restart.',
  },
  {
    name: 'DEMO_PASSWORD',
    default: '`gatehouse-demo`',
    readBy: 'server',
    description: "The demo people's password; must be changed to seed PostgreSQL.",
  },
  {
    name: 'SMTP_URL',
    default: '*(unset: no email)*',
    readBy: 'server',
    description: '`smtp://user:password@host:587` or `smtps://…`, with `SMTP_FROM`: invitation and reset links are also emailed.',
  },
  {
    name: 'SMTP_FROM',
    default: '*(unset)*',
    readBy: 'server',
    description: 'The sender, e.g. `Gatehouse <gatehouse@example.com>`; with `SMTP_URL`.',
  },
  {
    name: 'OAUTH_SIGNING_KEYS',
    default: '*(unset: generated, stored)*',
    readBy: 'server',
    description: 'A JSON array (or JWKS) of private JWKs including an RSA key, with `OAUTH_COOKIE_KEYS`.',
  },
  {
    name: 'OAUTH_COOKIE_KEYS',
    default: '*(unset: generated, stored)*',
    readBy: 'server',
    description: 'Comma-separated cookie secrets of at least 32 characters, with `OAUTH_SIGNING_KEYS`.',
  },
  {
    name: 'NODE_ENV',
    default: '`production`',
    readBy: 'server',
    description: '`development` under `npm run dev`; set by the tools, not by hand.',
  },
  {
    name: 'NEXTAUTH_URL',
    default: '`PUBLIC_URL`',
    readBy: 'server',
    description: 'Written by Gatehouse from `PUBLIC_URL` for next-auth; a value you set is replaced.',
  },
  {
    name: 'NEW_AUTH_SECRET',
    default: '*(unset)*',
    readBy: 'tools',
    description: 'The new secret for `npm run secret:rotate`.',
  },
  {
    name: 'NODE_OPTIONS',
    default: '*(unset)*',
    readBy: 'tools',
    description: "A `--max-old-space-size` here replaces the server's default of 256 MB.",
  },
  {
    name: 'GATEHOUSE_DIST_DIR',
    default: '`.next`',
    readBy: 'tools',
    description: 'The build folder `npm start` and `next.config.mjs` use (the tests build into `.next-test`).',
  },
  {
    name: 'GATEHOUSE_MIGRATIONS_DIR',
    default: '`./prisma/migrations`',
    readBy: 'tools',
    description: 'Where the server reads migrations; `npm start` sets it, since the server runs in its build folder.',
  },
  {
    name: 'GATEHOUSE_TEST_CIMD_LOOPBACK_ORIGINS',
    default: '*(unset)*',
    readBy: 'tests',
    description: 'Loopback `https` origins metadata documents may be fetched from, in tests only.',
  },
  {
    name: 'GATEHOUSE_TEST_CIMD_ACKNOWLEDGE',
    default: '*(unset)*',
    readBy: 'tests',
    description: 'The acknowledgement the setting above requires.',
  },
];

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
  /** /mcp requests per grant per minute (docs/protocol.md §6: 120). */
  mcpRateLimitPerMinute: number;
  /** /mcp requests refused for want of a valid access token, per client address per minute (per instance); then 429. */
  mcpUnauthenticatedRateLimit: number;
  /** How often expired rows and unused clients are removed. */
  sweepIntervalMs: number;
  connectorRefreshMs: number;
  connectorMaxResultBytes: number;
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
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'} ${issue.message}`));
  }
  const raw = parsed.data;
  const dataDir = resolve(raw.DATA_DIR);
  const database = raw.DATABASE_URL ? ({ kind: 'postgres', url: raw.DATABASE_URL } as const) : ({ kind: 'embedded', dataDir: join(dataDir, 'pgdata') } as const);
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
    connectorRefreshMs: raw.CONNECTOR_REFRESH_SECONDS * 1000,
    connectorMaxResultBytes: raw.CONNECTOR_MAX_RESULT_BYTES,
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
