// POST /oauth/token around the provider (docs/protocol.md §4):
// - every exchange runs in one database transaction, so a code's consumption, the tokens it yields and
//   their audit event commit together, and a concurrent revocation is ordered with it (adapter.ts);
// - a refresh token rotates exactly once: repeats of it within 10 s (parallel client processes, a lost
//   response) get the identical response, stored sealed with a key only that token derives; on
//   PostgreSQL an advisory lock on the token's hash serializes the repeats across instances (the
//   embedded database serializes transactions by itself);
// - a request answered with an error changes nothing: its transaction is rolled back (the provider
//   consumes a code or refresh token before it finds some errors), and the resource is checked before
//   the provider runs at all;
// - a refresh token presented after that window is theft: the provider answers invalid_grant, and
//   Gatehouse records it (`refresh.reuse_detected`) and revokes the grant — a reused code likewise —
//   in a transaction of its own that commits.
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
import { revokeGrant } from '@/lib/grants/revoke';
import { mcpResource, resourceParameter } from '../resource';
import type { RunProvider } from './register';
import { refuseUnstorableParameters } from './parameters';
import { InvalidClient, InvalidTarget, PayloadTooLarge } from '../errors';
import { withBody } from './responses';

export const REFRESH_REPLAY_WINDOW_MS = 10_000;
const REPLAY_MODEL = 'RefreshReplay';
const TOKEN_BODY_LIMIT = 64 * 1024;

type ReplayPayload = { clientId: string; sealed: string };

export async function handleToken(request: Request, run: RunProvider, provider: Provider, ip: string): Promise<Response> {
  const text = await readLimitedBody(request, TOKEN_BODY_LIMIT);
  if (text === null) throw new PayloadTooLarge('invalid_request', 'the request body is too large');
  const form = new URLSearchParams(text);
  refuseUnstorableParameters(form);
  // RFC 8707 §2: the resource is checked, and canonicalised, before the provider runs — the provider
  // resolves it only after it has consumed the code or refresh token.
  const resource = resourceParameter(form.getAll('resource'));
  if (!resource.ok) throw new InvalidTarget(`the only resource is ${mcpResource()}`);
  if (resource.resource) {
    form.delete('resource');
    form.set('resource', resource.resource);
  }
  const forward = withBody(request, resource.resource ? form.toString() : text, request.headers.get('content-type') ?? 'application/x-www-form-urlencoded');
  const clientId = presentedClientId(request, form);
  // A client an instance admin disabled gets nothing here, not even a repeat from the replay window
  // (the provider refuses it too, but after that window's answer and as if its token were stolen).
  if (clientId && (await isDisabled(clientId))) throw new InvalidClient('client authentication failed');
  // A metadata-document client is fetched now, outside the transaction: a slow document server must
  // never hold a database connection (lib/db/transaction.ts).
  if (!(await metadataDocumentResolves(provider, clientId))) {
    throw new InvalidClient('the client metadata document could not be fetched');
  }
  const grantType = form.get('grant_type');
  const refreshToken = grantType === 'refresh_token' ? form.get('refresh_token') : null;
  const code = grantType === 'authorization_code' ? form.get('code') : null;

  let outcome: Outcome;
  try {
    outcome = await inTransaction(async (tx) => {
      const result = refreshToken
        ? await refresh(tx, refreshToken, { request, form, clientId }, forward, run)
        : code
          ? await exchangeCode(tx, code, forward, run)
          : { response: await run(forward), issued: 'token.issued' as const };
      if (result.response.status !== 200) throw new ErrorAnswer(result);
      await auditIssued(tx, provider, result, ip);
      return result;
    });
  } catch (error) {
    if (!(error instanceof ErrorAnswer)) throw error;
    outcome = error.outcome;
  }
  // A deliberate consequence of an error answer: a reused code or refresh token ends the grant, in a
  // transaction of its own, after the exchange's own changes were rolled back.
  if (outcome.reuse) await revokeReusedGrant(outcome.reuse, presentedClientId(request, form), ip);
  return outcome.response;
}

/** What an exchange answers, and whether it found a code or refresh token used before (theft). */
type Outcome = { response: Response; issued?: 'token.issued' | 'token.refreshed'; reuse?: Reuse };
type Reuse = { kind: 'code_reuse' | 'refresh_reuse'; grantId: string; usedAt: Date };

/**
 * Thrown out of the exchange's transaction to roll it back: a token request answered with an error
 * changes nothing (RFC 6749 §5.2) — the provider may already have consumed the code or refresh token, or
 * revoked the grant, before it found the error. Only the reuse it detected is acted on, afterwards.
 */
class ErrorAnswer {
  constructor(readonly outcome: Outcome) {}
}

async function revokeReusedGrant(reuse: Reuse, presentedClient: string | null, ip: string): Promise<void> {
  await inTransaction(async (tx) => {
    if (reuse.kind === 'refresh_reuse') {
      const grant = await tx.grant.findUnique({ where: { id: reuse.grantId } });
      await recordAudit(
        {
          type: 'refresh.reuse_detected',
          orgId: grant?.orgId ?? null,
          actorPersonId: null,
          clientId: grant?.clientId ?? presentedClient,
          grantId: reuse.grantId,
          ip,
          data: { usedAt: reuse.usedAt.toISOString() },
        },
        tx,
      );
    }
    // Every token and code of the grant, the provider's Grant and Gatehouse's row: what the provider's
    // own revocation did inside the rolled-back transaction, and more.
    await revokeGrant({ grantId: reuse.grantId, byPersonId: null, reason: reuse.kind, ip });
  });
}

/** RFC 6749 §4.1.2: a code works once; presented again, what it issued is revoked (the provider's side
 * by the provider, Gatehouse's grant row here). Exchanges of one code are serialized on PostgreSQL. */
async function exchangeCode(tx: Tx, code: string, forward: Request, run: RunProvider): Promise<Outcome> {
  const key = storageId('AuthorizationCode', code);
  await lockKey(tx, key);
  const stored = await tx.oidcModel.findUnique({ where: { model_id: { model: 'AuthorizationCode', id: key } } });
  const response = await run(forward);
  if (response.status === 200) return { response, issued: 'token.issued' };
  if (stored?.consumedAt && stored.grantId) return { response, reuse: { kind: 'code_reuse', grantId: stored.grantId, usedAt: stored.consumedAt } };
  return { response };
}

async function lockKey(tx: Tx, key: string): Promise<void> {
  if (database().kind === 'postgres') await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 7))`;
}

type Presented = { request: Request; form: URLSearchParams; clientId: string | null };

async function refresh(tx: Tx, refreshToken: string, presented: Presented, forward: Request, run: RunProvider): Promise<Outcome> {
  const key = storageId('RefreshToken', refreshToken);
  await lockKey(tx, key);
  const replayKey = deriveKey(refreshToken, 'refresh-replay');
  const cached = await tx.oidcModel.findUnique({ where: { model_id: { model: REPLAY_MODEL, id: key } } });
  if (cached?.expiresAt && cached.expiresAt.getTime() > Date.now()) {
    const payload = cached.payload as ReplayPayload;
    // The repeat must come from the client the token belongs to, authenticated as the provider would.
    if (await authenticatesAs(tx, presented, payload.clientId)) {
      return { response: tokenResponse(unseal(replayKey, payload.sealed)) };
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
    return { response, issued: 'token.refreshed' };
  }
  // A refresh token used before, presented again after the replay window: theft. The provider has
  // revoked the grant; Gatehouse records it and revokes it everywhere (after the rollback, see above).
  if (stored?.consumedAt && stored.grantId) return { response, reuse: { kind: 'refresh_reuse', grantId: stored.grantId, usedAt: stored.consumedAt } };
  return { response };
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

async function auditIssued(tx: Tx, provider: Provider, outcome: Outcome, ip: string): Promise<void> {
  if (!outcome.issued) return;
  const body = (await outcome.response.clone().json()) as { access_token?: string; scope?: string };
  if (!body.access_token) return;
  const token = await provider.AccessToken.find(body.access_token);
  if (!token?.grantId) return;
  const grant = await tx.grant.findUnique({ where: { id: token.grantId } });
  await tx.grant.updateMany({ where: { id: token.grantId }, data: { lastUsedAt: new Date() } });
  await recordAudit(
    {
      type: outcome.issued,
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
