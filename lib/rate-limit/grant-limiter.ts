// The /mcp budget: MCP_RATE_LIMIT_PER_MINUTE (default 120) requests per 60 s per grant (docs/protocol.md §6 step 5),
// keyed by grant id — never by a token, so a refresh does not reset it. One process counts in memory; with REDIS_URL every instance
// shares one budget in Redis.
//
// If Redis becomes unreachable, each instance falls back to counting in its own memory (the insurance
// limiter) until Redis answers again: the service stays up, and a grant can then spend at most one
// budget per instance. Refusing every call while Redis is down would turn a cache outage into an outage
// of every connected app.
import Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { assertNoTransaction } from '@/lib/db/open-transaction';
import { env } from '@/lib/env';
import { processSingleton } from '@/lib/server/process-singleton';

export const MCP_WINDOW_SECONDS = 60;

export function mcpRequestsPerWindow(): number {
  return env().mcpRateLimitPerMinute;
}

export type LimitDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

type GrantLimiter = { limiter: RateLimiterAbstract; redis: Redis | null };

function limiter(): RateLimiterAbstract {
  return grantLimiter().limiter;
}

function grantLimiter(): GrantLimiter {
  return processSingleton('grantLimiter', createGrantLimiter);
}

function createGrantLimiter(): GrantLimiter {
  const options = { points: mcpRequestsPerWindow(), duration: MCP_WINDOW_SECONDS, keyPrefix: 'gatehouse:mcp' };
  const { redisUrl } = env();
  if (!redisUrl) return { limiter: new RateLimiterMemory(options), redis: null };
  const redis = new Redis(redisUrl, {
    enableOfflineQueue: false, // fail fast to the insurance limiter instead of queueing
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
  });
  let lastError = '';
  redis.on('error', (error) => {
    if (error.message !== lastError) console.error('gatehouse: redis', error.message);
    lastError = error.message;
  });
  redis.on('ready', () => (lastError = ''));
  const limiter = new RateLimiterRedis({
    ...options,
    storeClient: redis,
    insuranceLimiter: new RateLimiterMemory(options),
  });
  return { limiter, redis };
}

/**
 * Opens the Redis connection at start-up (for up to 3 s), so that the first requests already count in
 * the shared budget instead of falling back to memory while the connection is being made.
 */
export async function prepareGrantLimiter(): Promise<void> {
  const { redis } = grantLimiter();
  if (!redis || redis.status === 'ready') return;
  const ready = await Promise.race([new Promise<boolean>((resolve) => redis.once('ready', () => resolve(true))), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3_000).unref())]);
  if (!ready) console.error('gatehouse: Redis is not reachable yet; /mcp budgets are counted per instance until it is');
}

export async function takeFromGrantBudget(grantId: string): Promise<LimitDecision> {
  assertNoTransaction('asking Redis for a grant budget'); // Redis may be slow: no database connection held
  try {
    const result = await limiter().consume(grantId, 1);
    return { allowed: true, remaining: result.remainingPoints };
  } catch (rejection) {
    // A spent budget rejects with a RateLimiterRes; anything else (e.g. a store error with no insurance
    // left) is a real failure. Checked by shape: bundling may give the class two identities.
    if (rejection instanceof RateLimiterRes || (typeof rejection === 'object' && rejection !== null && 'msBeforeNext' in rejection)) {
      const seconds = Math.ceil((rejection as RateLimiterRes).msBeforeNext / 1000);
      return { allowed: false, retryAfterSeconds: Math.min(MCP_WINDOW_SECONDS, Math.max(1, seconds)) };
    }
    throw rejection;
  }
}
