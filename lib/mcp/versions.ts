// One row per MCP protocol revision: everything that differs between them is read from here.
import { hasOwnKey } from '@/lib/own-keys';
import { JSON_RPC } from './errors';

export type ProtocolVersion = '2025-03-26' | '2025-06-18' | '2025-11-25' | '2026-07-28';

export type VersionRules = {
  version: ProtocolVersion;
  /** Lifecycle: `initialize` + `ping` (up to 2025-11-25), or `server/discover` with per-request _meta. */
  handshake: 'initialize' | 'discover';
  /** Mcp-Method / Mcp-Name headers must be present and match the body. */
  checksStandardHeaders: boolean;
  /** The request's params._meta must carry the protocol version and client capabilities. */
  requiresRequestMeta: boolean;
  /** HTTP status for an unknown method (the JSON-RPC code is -32601 in every revision). */
  unknownMethodStatus: 200 | 404;
  /** Results carry `resultType: "complete"`. */
  resultType: boolean;
  /** List results carry caching hints (ttlMs, cacheScope). */
  cacheHints: boolean;
  /** Results carry the server's identity in _meta. */
  serverInfoInMeta: boolean;
  resourceNotFoundCode: number;
  /** Trace context (traceparent…) is read from params._meta and recorded with the call. */
  readsTraceContext: boolean;
};

const LEGACY = {
  handshake: 'initialize',
  checksStandardHeaders: false,
  requiresRequestMeta: false,
  unknownMethodStatus: 200,
  resultType: false,
  cacheHints: false,
  serverInfoInMeta: false,
  resourceNotFoundCode: JSON_RPC.RESOURCE_NOT_FOUND,
  readsTraceContext: false,
} as const;

export const VERSIONS: Record<ProtocolVersion, VersionRules> = {
  '2025-03-26': { version: '2025-03-26', ...LEGACY },
  '2025-06-18': { version: '2025-06-18', ...LEGACY },
  '2025-11-25': { version: '2025-11-25', ...LEGACY },
  '2026-07-28': {
    version: '2026-07-28',
    handshake: 'discover',
    checksStandardHeaders: true,
    requiresRequestMeta: true,
    unknownMethodStatus: 404,
    resultType: true,
    cacheHints: true,
    serverInfoInMeta: true,
    resourceNotFoundCode: JSON_RPC.INVALID_PARAMS,
    readsTraceContext: true,
  },
};

export const SUPPORTED_VERSIONS = Object.keys(VERSIONS) as ProtocolVersion[];
/** Without an MCP-Protocol-Version header a request is taken as 2025-03-26 (transport spec, 2025-06-18+). */
export const DEFAULT_VERSION: ProtocolVersion = '2025-03-26';
/** What `initialize` answers when the client asks for a version it does not know. */
export const LATEST_INITIALIZE_VERSION: ProtocolVersion = '2025-11-25';
export const INITIALIZE_VERSIONS = SUPPORTED_VERSIONS.filter((version) => VERSIONS[version].handshake === 'initialize');

export const CACHE_HINTS = { ttlMs: 60_000, cacheScope: 'private' } as const;

/** The header's value is untrusted: `__proto__` or `toString` are no versions (own keys only). */
export function isSupported(version: string): version is ProtocolVersion {
  return hasOwnKey(VERSIONS, version);
}
