// POST /oauth/token around the provider (SPEC §4):
// - every exchange runs in one database transaction, so a code's consumption, the tokens it yields and
//   their audit event commit together, and a concurrent revocation is ordered with it (adapter.ts);
// - a refresh token rotates exactly once: repeats of it within 10 s (parallel client processes, a lost
//   response) get the identical response, stored sealed with a key only that token derives; on
//   PostgreSQL an advisory lock on the token's hash serializes the repeats across instances (the
//   embedded database serializes transactions by itself);
// - a refresh token presented after that window is theft: the provider answers invalid_grant and
//   revokes the grant, and Gatehouse records it (`refresh.reuse_detected`) and revokes its own row.
import { readLimitedBody } from '@/lib/http/body';
import type Provider from 'oidc-provider';
import { recordAudit } from '@/lib/audit/events';
import { database } from '@/lib/db/client';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import { deriveKey, seal, unseal } from '@/lib/crypto/seal';
import type { Prisma } from '@/lib/generated/prisma/client';
import { storageId } from '../adapter';
import { clientSecretMatches } from '../client-secrets';
import { metadataDocumentResolves } from '../cimd';
import { isDisabled } from '../clients';
import { revokeGrant } from '../grants';
import type { RunProvider } from './register';
import { refuseUnstorableParameters } from './parameters';
import { oauthError, withBody } from './responses';

export const REFRESH_REPLAY_WINDOW_MS = 10_000;
const REPLAY_MODEL = 'RefreshReplay';
const TOKEN_BODY_LIMIT = 64 * 1024;

type ReplayPayload = { clientId: string; sealed: string };

export async function handleToken(request: Request, run: RunProvider, provider: Provider, ip: string): Promise<Response> {
  const text = await readLimitedBody(request, TOKEN_BODY_LIMIT);
  if (text === null) return oauthError(413, 'invalid_request', 'the request body is too large');
  const form = new URLSearchParams(text);
  const refused = refuseUnstorableParameters(form);
  if (refused) return refused;
  const forward = withBody(request, text, request.headers.get('content-type') ?? 'application/x-www-form-urlencoded');
  const clientId = presentedClientId(request, form);
  // A client an instance admin disabled gets nothing here, not even a repeat from the replay window
  // (the provider refuses it too, but after that window's answer and as if its token were stolen).
  if (clientId && (await isDisabled(clientId))) return oauthError(401, 'invalid_client', 'client authentication failed');
  // A metadata-document client is fetched now, outside the transaction: a slow document server must
  // never hold a database connection (the embedded database has only one).
  if (!(await metadataDocumentResolves(provider, clientId))) {
    return oauthError(401, 'invalid_client', 'the client metadata document could not be fetched');
  }
  const grantType = form.get('grant_type');
  const refreshToken = grantType === 'refresh_token' ? form.get('refresh_token') : null;
  const code = grantType === 'authorization_code' ? form.get('code') : null;

  return inTransaction(async (tx) => {
    if (refreshToken) return refresh(tx, refreshToken, { request, form, clientId }, forward, run, provider, ip);
    if (code) return exchangeCode(tx, code, forward, run, provider, ip);
    const response = await run(forward);
    if (response.status === 200) await auditIssued(tx, provider, response, 'token.issued', ip);
    return response;
  });
}

/** RFC 6749 §4.1.2: a code works once; presented again, what it issued is revoked (the provider's side
 * by the provider, Gatehouse's grant row here). Exchanges of one code are serialized on PostgreSQL. */
async function exchangeCode(tx: Tx, code: string, forward: Request, run: RunProvider, provider: Provider, ip: string): Promise<Response> {
  const key = storageId('AuthorizationCode', code);
  await lockKey(tx, key);
  const stored = await tx.oidcModel.findUnique({ where: { model_id: { model: 'AuthorizationCode', id: key } } });
  const response = await run(forward);
  if (response.status === 200) {
    await auditIssued(tx, provider, response, 'token.issued', ip);
  } else if (stored?.consumedAt && stored.grantId) {
    await revokeGrant({ grantId: stored.grantId, byPersonId: null, reason: 'code_reuse', ip });
  }
  return response;
}

async function lockKey(tx: Tx, key: string): Promise<void> {
  if (database().kind === 'postgres') await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 7))`;
}

type Presented = { request: Request; form: URLSearchParams; clientId: string | null };

async function refresh(
  tx: Tx,
  refreshToken: string,
  presented: Presented,
  forward: Request,
  run: RunProvider,
  provider: Provider,
  ip: string,
): Promise<Response> {
  const key = storageId('RefreshToken', refreshToken);
  await lockKey(tx, key);
  const replayKey = deriveKey(refreshToken, 'refresh-replay');
  const cached = await tx.oidcModel.findUnique({ where: { model_id: { model: REPLAY_MODEL, id: key } } });
  if (cached?.expiresAt && cached.expiresAt.getTime() > Date.now()) {
    const payload = cached.payload as ReplayPayload;
    // The repeat must come from the client the token belongs to, authenticated as the provider would.
    if (await authenticatesAs(tx, presented, payload.clientId)) {
      return tokenResponse(unseal(replayKey, payload.sealed));
    }
  }

  const stored = await tx.oidcModel.findUnique({ where: { model_id: { model: 'RefreshToken', id: key } } });
  const owner = (stored?.payload as { clientId?: string } | undefined)?.clientId ?? '';
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
        payload: { clientId: owner, sealed: seal(replayKey, body) } satisfies ReplayPayload as Prisma.InputJsonValue,
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
        clientId: grant?.clientId ?? presented.clientId,
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

/**
 * Whether the request authenticates as `clientId`: the same client_id for a public client; the right
 * secret (Basic or post) for a confidential one. Other methods (private_key_jwt) are left to the
 * provider: their repeats are not answered from the replay window.
 */
async function authenticatesAs(tx: Tx, presented: Presented, clientId: string): Promise<boolean> {
  if (!clientId || presented.clientId !== clientId) return false;
  if (clientId.startsWith('https://')) return true; // metadata-document clients are public
  const row = await tx.oidcModel.findUnique({ where: { model_id: { model: 'Client', id: clientId } } });
  const metadata = (row?.payload ?? {}) as { token_endpoint_auth_method?: string; client_secret?: string };
  const method = metadata.token_endpoint_auth_method ?? 'none';
  if (method === 'none') return true;
  if (method === 'client_secret_basic' || method === 'client_secret_post') {
    const secret = basicCredentials(presented.request)?.secret ?? presented.form.get('client_secret');
    return secret !== null && clientSecretMatches(metadata.client_secret, secret);
  }
  return false;
}

/** The client_id the request claims, from the body or HTTP Basic authentication (RFC 6749 §2.3.1). */
export function presentedClientId(request: Request, form: URLSearchParams): string | null {
  return form.get('client_id') || basicCredentials(request)?.id || null;
}

function basicCredentials(request: Request): { id: string; secret: string } | null {
  const authorization = request.headers.get('authorization') ?? '';
  if (!/^basic /i.test(authorization)) return null;
  const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 1) return null;
  const decode = (value: string) => decodeURIComponent(value.replace(/\+/g, '%20'));
  try {
    return { id: decode(decoded.slice(0, separator)), secret: decode(decoded.slice(separator + 1)) };
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
