// The rules table of the MCP protocol revisions (lib/mcp/versions.ts): one row per revision, and what
// differs between them is read from that row alone. The integration tests see these rules on the wire;
// here each row is pinned, so a change to one revision cannot leak into another unnoticed.
import { describe, expect, it } from 'vitest';
import { JSON_RPC } from '@/lib/mcp/errors';
import { CACHE_HINTS, DEFAULT_VERSION, INITIALIZE_VERSIONS, isSupported, LATEST_INITIALIZE_VERSION, SUPPORTED_VERSIONS, VERSIONS, type VersionRules } from '@/lib/mcp/versions';

// Up to 2025-11-25 the lifecycle is initialize + ping, and nothing of 2026-07-28 applies.
const LEGACY_RULES = {
  handshake: 'initialize',
  checksStandardHeaders: false,
  requiresRequestMeta: false,
  unknownMethodStatus: 200,
  resultType: false,
  cacheHints: false,
  serverInfoInMeta: false,
  resourceNotFoundCode: -32002,
  readsTraceContext: false,
} as const;

const EXPECTED: Record<string, VersionRules> = {
  '2025-03-26': { version: '2025-03-26', ...LEGACY_RULES },
  '2025-06-18': { version: '2025-06-18', ...LEGACY_RULES },
  '2025-11-25': { version: '2025-11-25', ...LEGACY_RULES },
  // MCP 2026-07-28: server/discover, per-request _meta, Mcp-Method / Mcp-Name, 404 for unknown methods,
  // resultType and cache hints, serverInfo in _meta, -32602 for an unknown resource, trace context.
  '2026-07-28': {
    version: '2026-07-28',
    handshake: 'discover',
    checksStandardHeaders: true,
    requiresRequestMeta: true,
    unknownMethodStatus: 404,
    resultType: true,
    cacheHints: true,
    serverInfoInMeta: true,
    resourceNotFoundCode: -32602,
    readsTraceContext: true,
  },
};

describe('the protocol revisions', () => {
  it('are the four supported revisions, oldest first (the order server/discover and -32022 list them in)', () => {
    expect(SUPPORTED_VERSIONS).toEqual(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
  });

  it.each(Object.keys(EXPECTED))('%s has exactly its row of rules', (version) => {
    expect(VERSIONS[version as keyof typeof VERSIONS]).toEqual(EXPECTED[version]);
  });

  it('names each row by its own key', () => {
    for (const version of SUPPORTED_VERSIONS) expect(VERSIONS[version].version).toBe(version);
  });

  it('answers an unknown method with -32601 in every revision; only the HTTP status differs', () => {
    expect(SUPPORTED_VERSIONS.map((version) => VERSIONS[version].unknownMethodStatus)).toEqual([200, 200, 200, 404]);
  });

  it('answers an unknown resource with -32002 up to 2025-11-25 and -32602 from 2026-07-28', () => {
    expect(VERSIONS['2025-11-25'].resourceNotFoundCode).toBe(JSON_RPC.RESOURCE_NOT_FOUND);
    expect(VERSIONS['2026-07-28'].resourceNotFoundCode).toBe(JSON_RPC.INVALID_PARAMS);
  });

  it('takes a request without MCP-Protocol-Version as 2025-03-26 (transport spec, 2025-06-18+)', () => {
    expect(DEFAULT_VERSION).toBe('2025-03-26');
  });

  it('offers initialize only for the revisions that have it, and answers an unknown initialize version with 2025-11-25', () => {
    expect(INITIALIZE_VERSIONS).toEqual(['2025-03-26', '2025-06-18', '2025-11-25']);
    expect(LATEST_INITIALIZE_VERSION).toBe('2025-11-25');
    expect(INITIALIZE_VERSIONS).toContain(LATEST_INITIALIZE_VERSION);
  });

  it('gives lists the same cache hints: one minute, private', () => {
    expect(CACHE_HINTS).toEqual({ ttlMs: 60_000, cacheScope: 'private' });
  });
});

describe('isSupported', () => {
  it.each(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'])('takes %s', (version) => {
    expect(isSupported(version)).toBe(true);
  });

  it.each([
    ['an older revision', '2024-11-05'],
    ['a future revision', '2027-01-01'],
    ['nothing', ''],
    ['surrounding space (negotiation trims first)', ' 2025-06-18 '],
    ['another spelling of a date', '2025-6-18'],
    ['two values joined by a proxy', '2025-06-18, 2025-11-25'],
    ['a trailing character', '2026-07-28x'],
    ['a revision and a suffix', '2026-07-28-draft'],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
    ['toString', 'toString'],
    ['hasOwnProperty', 'hasOwnProperty'],
    ['valueOf', 'valueOf'],
  ])('refuses %s', (_what, version) => {
    expect(isSupported(version)).toBe(false);
  });
});
