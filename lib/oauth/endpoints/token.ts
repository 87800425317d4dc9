// POST /oauth/token around the provider (SPEC §4):
// - every exchange runs in one database transaction, so a code's consumption, the tokens it yields and
//   their audit event commit together, and a concurrent revocation is ordered with it (adapter.ts);
// - a refresh token rotates exactly once: repeats of it within 10 s (parallel client processes, a lost
//   response) get the identical response, stored sealed with a key only that token derives; on
//   PostgreSQL an advisory lock on the token's hash serializes the repeats across instances (the
//   embedded database serializes transactions by itself);
// - a refresh token presented after that window is theft: the provider answers invalid_grant and
//   revokes the grant, and Gatehouse records it (`refresh.reuse_detected`) and revokes its own row.
import type Provider from 'oidc-provider';
import { recordAudit } from '@/lib/audit/events';
import { database } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import { deriveKey, seal, unseal } from '@/lib/crypto/seal';
import type { Prisma } from '@/lib/generated/prisma/client';
import { storageId } from '../adapter';
import { revokeGrant } from '../grants';
import type { RunProvider } from './register';
import { oauthError, readLimitedText, withBody } from './responses';

export const REFRESH_REPLAY_WINDOW_MS = 10_000;
const REPLAY_MODEL = 'RefreshReplay';
const TOKEN_BODY_LIMIT = 64 * 1024;

type ReplayPayload = { clientId: string; sealed: string };

export async function handleToken(request: Request, run: RunProvider, provider: Provider, ip: string): Promise<Response> {
  const text = await readLimitedText(request, TOKEN_BODY_LIMIT);
  if (text === null) return oauthError(413, 'invalid_request', 'the request body is too large');
  const form = new URLSearchParams(text);
  const forward = withBody(request, text, request.headers.get('content-type') ?? 'application/x-www-form-urlencoded');
  const refreshToken = form.get('grant_type') === 'refresh_token' ? form.get('refresh_token') : null;

  return inTransaction(async (tx) => {
    if (!refreshToken) {
      const response = await run(forward);
      if (response.status === 200) await auditIssued(tx, provider, response, 'token.issued', ip);
      return response;
    }
    return refresh(tx, refreshToken, presentedClientId(request, form), forward, run, provider, ip);
  });
}

async function refresh(
  tx: Tx,
  refreshToken: string,
  clientId: string | null,
  forward: Request,
  run: RunProvider,
  provider: Provider,
  ip: string,
): Promise<Response> {
  const key = storageId('RefreshToken', refreshToken);
  if (database().kind === 'postgres') {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 7))`;
  }
  const replayKey = deriveKey(refreshToken, 'refresh-replay');
  const cached = await tx.oidcModel.findUnique({ where: { model_id: { model: REPLAY_MODEL, id: key } } });
  if (cached?.expiresAt && cached.expiresAt.getTime() > Date.now()) {
    const payload = cached.payload as ReplayPayload;
    if (clientId !== null && payload.clientId === clientId) {
      return tokenResponse(unseal(replayKey, payload.sealed));
    }
  }

  const stored = await tx.oidcModel.findUnique({ where: { model_id: { model: 'RefreshToken', id: key } } });
  const response = await run(forward);
  if (response.status === 200) {
    const body = await response.clone().text();
    const grantId = stored?.grantId ?? null;
    await tx.oidcModel.upsert({
      where: { model_id: { model: REPLAY_MODEL, id: key } },
      create: {
        model: REPLAY_MODEL,
        id: key,
        grantId,
        payload: { clientId: clientId ?? '', sealed: seal(replayKey, body) } satisfies ReplayPayload as Prisma.InputJsonValue,
        expiresAt: new Date(Date.now() + REFRESH_REPLAY_WINDOW_MS),
      },
      update: {},
    });
    await auditIssued(tx, provider, response, 'token.refreshed', ip);
  } else if (stored?.consumedAt && stored.grantId) {
    // A refresh token used before, presented again after the replay window: the provider has revoked the
    // grant; make it revoked everywhere and say so.
    const grant = await tx.grant.findUnique({ where: { id: stored.grantId } });
    await recordAudit(
      {
        type: 'refresh.reuse_detected',
        orgId: grant?.orgId ?? null,
        actorPersonId: null,
        clientId: grant?.clientId ?? clientId,
        grantId: stored.grantId,
        ip,
        data: { usedAt: stored.consumedAt.toISOString() },
      },
      tx,
    );
    await revokeGrant({ grantId: stored.grantId, byPersonId: null, reason: 'refresh_reuse', ip });
  }
  return response;
}

function tokenResponse(body: string): Response {
  return new Response(body, {
    status: 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', Pragma: 'no-cache' },
  });
}

/** The client_id the request claims, from the body or HTTP Basic authentication (RFC 6749 §2.3.1). */
function presentedClientId(request: Request, form: URLSearchParams): string | null {
  const fromBody = form.get('client_id');
  if (fromBody) return fromBody;
  const authorization = request.headers.get('authorization') ?? '';
  if (!/^basic /i.test(authorization)) return null;
  const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 1) return null;
  try {
    return decodeURIComponent(decoded.slice(0, separator).replace(/\+/g, '%20'));
  } catch {
    return null;
  }
}

async function auditIssued(
  tx: Tx,
  provider: Provider,
  response: Response,
  type: 'token.issued' | 'token.refreshed',
  ip: string,
): Promise<void> {
  const body = (await response.clone().json()) as { access_token?: string; scope?: string };
  if (!body.access_token) return;
  const token = await provider.AccessToken.find(body.access_token);
  if (!token?.grantId) return;
  const grant = await tx.grant.findUnique({ where: { id: token.grantId } });
  await tx.grant.updateMany({ where: { id: token.grantId }, data: { lastUsedAt: new Date() } });
  await recordAudit(
    {
      type,
      orgId: grant?.orgId ?? null,
      actorPersonId: token.accountId ?? null,
      clientId: token.clientId ?? null,
      grantId: token.grantId,
      ip,
      data: { scope: body.scope ?? null },
    },
    tx,
  );
}
