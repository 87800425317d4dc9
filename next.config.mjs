import { ACTION_BODY_LIMIT_BYTES, PROXY_BODY_BUFFER_BYTES } from './lib/http/body-limits.mjs';
import { ROUTE_CONTENT_SECURITY_POLICY } from './lib/http/content-security-policy.mjs';

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Standalone output: the Docker image runs `node server.js` with only what the server needs.
  output: 'standalone',
  // Tests build into their own folder so that they never disturb a running `npm start`.
  distDir: process.env.GATEHOUSE_DIST_DIR || '.next',
  // Loaded from node_modules at run time, not bundled: oidc-provider relies on its class names, which a
  // production bundle would minify (its token endpoint then fails, in `next start` only); PGlite loads
  // its WebAssembly and data files from beside its own module; undici (the upstream HTTP client) stays the one
  // copy Node loads, with its own connection pool.
  serverExternalPackages: ['oidc-provider', 'undici', '@electric-sql/pglite', 'pglite-prisma-adapter', 'bcryptjs', 'rate-limiter-flexible', 'ioredis'],
  // The build type-checks the app alone; `npm run typecheck` checks the tests too (tsconfig.json).
  typescript: { tsconfigPath: 'tsconfig.app.json' },
  poweredByHeader: false,
  experimental: {
    // The proxy checks every server-action body before the framework decodes it, so the framework buffers
    // no more of a page request's body than that check needs (10 MB by default); past the limit the proxy
    // answers 413 (lib/http/body-limits.mjs says why the buffer is slightly larger than the limit).
    proxyClientMaxBodySize: PROXY_BODY_BUFFER_BYTES,
    serverActions: { bodySizeLimit: ACTION_BODY_LIMIT_BYTES },
  },
  reactStrictMode: true,
  // Migrations are read at start-up from prisma/migrations: make sure the standalone output has them.
  outputFileTracingIncludes: { '/**': ['./prisma/migrations/**/*'] },
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          // Same-origin only: no URL of Gatehouse leaks to a client's site, and browsers still send a real
          // Origin header on our own form posts (with no-referrer they send "null").
          { key: 'Referrer-Policy', value: 'same-origin' },
          // Nothing of Gatehouse may be framed: the consent screen above all (clickjacking).
          { key: 'X-Frame-Options', value: 'DENY' },
          // Pages replace it with their own, nonce-based policy (proxy.ts).
          { key: 'Content-Security-Policy', value: ROUTE_CONTENT_SECURITY_POLICY },
          // Browsers ignore it over plain http (RFC 6797 §8.1), so it is safe to send always; behind an
          // https proxy it keeps them on https. No includeSubDomains: other hosts of the domain are not ours.
          { key: 'Strict-Transport-Security', value: 'max-age=31536000' },
        ],
      },
    ];
  },
};

export default nextConfig;
