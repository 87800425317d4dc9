// The /mcp budget: 120 requests per 60 s per grant (SPEC §6 step 5), keyed by grant id — never by a
// token, so a refresh does not reset it. One process counts in memory; with REDIS_URL every instance
// shares one budget in Redis.
//
// If Redis becomes unreachable, each instance falls back to counting in its own memory (the insurance
// limiter) until Redis answers again: the service stays up, and a grant can then spend at most one
// budget per instance. Refusing every call while Redis is down would turn a cache outage into an outage
// of every connected app.
import Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { env } from '@/lib/env';

export const MCP_REQUESTS_PER_WINDOW = 120;
export const MCP_WINDOW_SECONDS = 60;

export type LimitDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

const holder = globalThis as unknown as { gatehouseGrantLimiter?: RateLimiterAbstract };

function limiter(): RateLimiterAbstract {
  if (holder.gatehouseGrantLimiter) return holder.gatehouseGrantLimiter;
  const options = { points: MCP_REQUESTS_PER_WINDOW, duration: MCP_WINDOW_SECONDS, keyPrefix: 'gatehouse:mcp' };
  const { redisUrl } = env();
  if (!redisUrl) {
    holder.gatehouseGrantLimiter = new RateLimiterMemory(options);
  } else {
    const redis = new Redis(redisUrl, {
      enableOfflineQueue: false, // fail fast to the insurance limiter instead of queueing
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      lazyConnect: false,
    });
    redis.on('error', (error) => console.error('gatehouse: redis', error.message));
    holder.gatehouseGrantLimiter = new RateLimiterRedis({
      ...options,
      storeClient: redis,
      insuranceLimiter: new RateLimiterMemory(options),
    });
  }
  return holder.gatehouseGrantLimiter;
}

export async function takeFromGrantBudget(grantId: string): Promise<LimitDecision> {
  try {
    const result = await limiter().consume(grantId, 1);
    return { allowed: true, remaining: result.remainingPoints };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      const seconds = Math.ceil(rejection.msBeforeNext / 1000);
      return { allowed: false, retryAfterSeconds: Math.min(MCP_WINDOW_SECONDS, Math.max(1, seconds)) };
    }
    throw rejection;
  }
}
