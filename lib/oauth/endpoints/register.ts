// POST /oauth/register (RFC 7591) and /oauth/register/{client_id} (RFC 7592), around the provider:
// size limit, per-IP rate limit, normalization of what real MCP clients send (registration.ts), the
// Gatehouse client row and audit event committed with the provider's Client, and secrets that never
// leave Gatehouse again after the registration response.
import { readLimitedBody } from '@/lib/http/body';
import { appIdentity, assignApp } from '@/lib/apps/apps';
import { recordAudit } from '@/lib/audit/events';
import { db } from '@/lib/db/client';
import { inTransaction } from '@/lib/db/transaction';
import { env } from '@/lib/env';
import { addressKey, FixedWindowLimiter } from '@/lib/rate-limit/fixed-window';
import { clientSecretMatches, isHashedSecret } from '../client-secrets';
import { deleteClient, redirectHostname } from '../clients';
import { oauthProvider } from '../provider';
import { InvalidClientMetadata, PayloadTooLarge, TooManyRequests } from '../errors';
import { normalizeRegistration, REGISTRATION_LIMITS } from '../registration';
import { withBody, withOpenCors } from './responses';
import { updateRegistration } from './register-update';
import { processSingleton } from '@/lib/server/process-singleton';

export type RunProvider = (request: Request) => Promise<Response>;

function limiter(): FixedWindowLimiter {
  return processSingleton('registrationLimiter', () => new FixedWindowLimiter(env().registrationRateLimit, 60_000));
}

/** The registration body, normalized (registration.ts); throws the 413 or 400 that refuses it. */
async function readRegistrationBody(request: Request): Promise<Record<string, unknown>> {
  const text = await readLimitedBody(request, REGISTRATION_LIMITS.bodyBytes);
  if (text === null) throw new PayloadTooLarge('invalid_client_metadata', `the registration body must be at most ${REGISTRATION_LIMITS.bodyBytes} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidClientMetadata('the registration body is not valid JSON');
  }
  return normalizeRegistration(parsed);
}

export async function handleRegistration(request: Request, run: RunProvider, ip: string): Promise<Response> {
  const decision = limiter().take(addressKey(ip));
  if (!decision.allowed) {
    throw new TooManyRequests('too many client registrations from this address; try again later', decision.retryAfterSeconds);
  }
  const body = await readRegistrationBody(request);

  const response = await inTransaction(async (tx) => {
    const answer = await run(withBody(request, JSON.stringify(body), 'application/json'));
    if (answer.status !== 201) return answer;
    const client = (await answer.clone().json()) as { client_id: string; client_name?: string; redirect_uris: string[] } & Record<string, unknown>;
    await tx.oAuthClient.create({
      data: {
        clientId: client.client_id,
        registration: 'dynamic',
        name: client.client_name ?? null,
        hostname: redirectHostname(client.redirect_uris),
        registeredIp: ip,
      },
    });
    // The registration joins its app (Claude's fifth registration is still Claude), in this transaction.
    await assignApp(client.client_id, appIdentity({ ...client, registration: 'dynamic' }));
    await recordAudit(
      {
        type: 'client.registered',
        clientId: client.client_id,
        ip,
        data: { name: client.client_name ?? null, redirectUris: client.redirect_uris, via: 'dynamic' },
      },
      tx,
    );
    return answer;
  });
  return withOpenCors(response);
}

/** RFC 7592: read, update, delete one's own registration with the registration access token. */
export async function handleClientManagement(request: Request, run: RunProvider, clientId: string, ip: string): Promise<Response> {
  if (request.method === 'GET') return withOpenCors(await stripSecret(await run(request)));

  if (request.method === 'PUT') {
    // RFC 7592 §2.2: the update is authenticated by the registration access token before anything else
    // is looked at. A caller without it gets the provider's own 401 invalid_token, whatever the body says
    // (the provider refuses before it reads one): nothing it sends, an echoed secret included, changes
    // the answer.
    if (!(await registrationTokenAuthenticates(request, clientId))) {
      return withOpenCors(await run(withBody(request, '{}', 'application/json')));
    }
    const body = await readRegistrationBody(request);
    if ('client_secret' in body) {
      // RFC 7592 §2.2: the client may echo its secret. It is stored only as a hash: verify, then drop it.
      const stored = await db().oidcModel.findUnique({ where: { model_id: { model: 'Client', id: clientId } } });
      const storedSecret = (stored?.payload as { client_secret?: string } | undefined)?.client_secret;
      if (!isHashedSecret(storedSecret) || !clientSecretMatches(storedSecret, String(body.client_secret))) {
        throw new InvalidClientMetadata('client_secret does not match');
      }
      delete body.client_secret;
    }
    return withOpenCors(await stripSecret(await updateRegistration(withBody(request, JSON.stringify(body), 'application/json'), run, clientId, ip)));
  }

  if (request.method === 'DELETE') {
    const response = await inTransaction(async () => {
      const answer = await run(request);
      if (answer.status === 204) await deleteClient(clientId, { byPersonId: null, ip, by: 'client' });
      return answer;
    });
    return withOpenCors(response);
  }
  return withOpenCors(await run(request));
}

/**
 * Whether the request carries, as a Bearer token (RFC 6750 §2.1, the only way the provider takes it), a
 * live registration access token issued for `clientId`. The provider checks it again when it runs.
 */
async function registrationTokenAuthenticates(request: Request, clientId: string): Promise<boolean> {
  const [scheme, token, ...rest] = (request.headers.get('authorization') ?? '').split(' ');
  if (rest.length > 0 || scheme?.toLowerCase() !== 'bearer' || !token) return false;
  const provider = await oauthProvider();
  const found = await provider.RegistrationAccessToken.find(token);
  return found?.clientId === clientId;
}

/** After registration, the secret is never shown again (the provider only has its hash anyway). */
async function stripSecret(response: Response): Promise<Response> {
  if (!response.headers.get('content-type')?.includes('application/json')) return response;
  const body = (await response.json()) as Record<string, unknown>;
  delete body.client_secret;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: response.status, headers });
}
