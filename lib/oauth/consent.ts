// The consent screen's data and decision (docs/protocol.md §5). The page shows what `loadConsent` returns; the form
// posts to `decideConsent`, which records the grant and hands the result back to the provider.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import { recordAudit } from '@/lib/audit/events';
import { roleCan } from '@/lib/auth/permissions';
import { signedInPersonId } from '@/lib/auth/signed-in';
import { deriveKey } from '@/lib/crypto/seal';
import { db } from '@/lib/db/client';
import { env } from '@/lib/env';
import { clientAddress } from '@/lib/http/client-address';
import { countFormFields, readLimitedBody } from '@/lib/http/body';
import { nodePair } from './bridge';
import { clientRecord, ensureClientRecord } from './clients';
import { consentErrorMessage, consentErrorPage, type ConsentErrorCode } from './consent-errors';
import { orgChoicesFor, type OrgChoice } from './eligibility';
import { approveGrant } from '@/lib/grants/approve';
import { oauthProvider } from './provider';
import { mcpResource, resourceParameter } from './resource';
import { isMcpScope, MCP_SCOPES, type McpScope } from './scopes';

export type ConsentView =
  | { kind: 'expired' }
  | { kind: 'sign-in'; loginPath: string }
  | {
      kind: 'ask';
      uid: string;
      csrf: string;
      person: { name: string; email: string };
      client: { name: string; unverified: boolean; identityHost: string | null };
      redirectHost: string;
      resource: string;
      scopes: { scope: McpScope; description: string }[];
      sharesProfile: boolean;
      orgs: (OrgChoice & { canRunTools: boolean })[];
      error: string | null;
    };

export async function loadConsent(uid: string, cookieHeader: string, error: string | null): Promise<ConsentView> {
  const provider = await oauthProvider();
  const interaction = await provider.Interaction.find(uid);
  if (!interaction?.params.client_id) return { kind: 'expired' };

  const personId = await signedInPersonId(new Headers({ cookie: cookieHeader }));
  if (!personId) return { kind: 'sign-in', loginPath: `/login?callbackUrl=${encodeURIComponent(`/consent/${uid}`)}` };
  const person = await db().person.findUnique({ where: { id: personId } });
  if (!person || person.disabledAt) return { kind: 'sign-in', loginPath: `/login?callbackUrl=${encodeURIComponent(`/consent/${uid}`)}` };

  const clientId = String(interaction.params.client_id);
  const client = await provider.Client.find(clientId);
  if (!client) return { kind: 'expired' };
  await ensureClientRecord({ clientId, clientName: client.clientName });
  const record = await clientRecord(clientId);
  const requested = String(interaction.params.scope ?? '').split(' ');
  const orgs = await orgChoicesFor(person.id, clientId);

  return {
    kind: 'ask',
    uid,
    csrf: csrfToken(uid, person.id),
    person: { name: person.name, email: person.email },
    client: {
      name: client.clientName ?? 'An unnamed app',
      unverified: record?.registration !== 'admin',
      identityHost: record?.registration === 'metadata_document' ? new URL(clientId).hostname : null,
    },
    redirectHost: hostOf(String(interaction.params.redirect_uri ?? client.redirectUris?.[0] ?? '')),
    resource: mcpResource(),
    scopes: requested.filter(isMcpScope).map((scope) => ({ scope, description: MCP_SCOPES[scope] })),
    sharesProfile: requested.includes('profile') || requested.includes('email'),
    orgs: orgs.map((org) => ({ ...org, canRunTools: roleCan(org.role, 'tool:execute') })),
    error: consentErrorMessage(error),
  };
}

/** Handles the consent form: Allow or Deny. Answers with a redirect, back to the client or the form. */
export async function decideConsent(request: Request, uid: string): Promise<Response> {
  const { publicUrl } = env();
  if (request.headers.get('origin') !== new URL(publicUrl).origin) {
    return consentErrorPage(403, 'This form must be sent from the Gatehouse consent page.');
  }
  const consentPath = `${publicUrl}/consent/${encodeURIComponent(uid)}`;
  const personId = await signedInPersonId(request.headers);
  if (!personId) return Response.redirect(consentPath, 303);
  // The session cookie may outlive the account: a disabled person approves nothing.
  const person = await db().person.findUnique({ where: { id: personId }, select: { disabledAt: true } });
  if (!person || person.disabledAt) return Response.redirect(consentPath, 303);
  const text = await readLimitedBody(request, 16 * 1024);
  // The form holds the token, the decision, the organization and one field per scope.
  if (text === null || countFormFields(text) > 64) return consentErrorPage(413, 'The consent form is too large.');
  const form = new URLSearchParams(text);
  if (!csrfValid(String(form.get('csrf') ?? ''), uid, personId)) {
    return consentErrorPage(403, 'This consent form expired or was not issued to you. Start again from the app.');
  }

  const provider = await oauthProvider();
  const ip = clientAddress(request.headers);
  const { req, res } = nodePair(request, { publicUrl, clientAddress: ip });
  let details: Awaited<ReturnType<Provider['interactionDetails']>>;
  try {
    details = await provider.interactionDetails(req, res);
  } catch {
    return Response.redirect(consentPath, 303); // expired, or started in another browser: the page says so
  }
  if (details.uid !== uid) return Response.redirect(consentPath, 303);
  const clientId = String(details.params.client_id);

  let result: Parameters<Provider['interactionResult']>[2];
  if (form.get('decision') !== 'allow') {
    await recordAudit({ type: 'consent.denied', actorPersonId: personId, clientId, ip, data: {} });
    result = { error: 'access_denied', error_description: 'The person did not allow access.' };
  } else {
    const scopes = form.getAll('scope').map(String).filter(isMcpScope);
    const offered = String(details.params.scope ?? '').split(' ');
    if (scopes.length === 0 || scopes.some((scope) => !offered.includes(scope))) {
      return Response.redirect(`${consentPath}?error=${'scope' satisfies ConsentErrorCode}`, 303);
    }
    const orgId = String(form.get('org') ?? '');
    const choice = (await orgChoicesFor(personId, clientId)).find((org) => org.orgId === orgId);
    if (!choice?.eligible) return Response.redirect(`${consentPath}?error=${'org' satisfies ConsentErrorCode}`, 303);

    // The authorization request's resource, under the same rule as at authorize and token (resource.ts):
    // the grant stores the canonical spelling, whatever the interaction was started with.
    const requested = details.params.resource;
    const resource = resourceParameter(Array.isArray(requested) ? requested.map(String) : requested ? [String(requested)] : []);
    if (!resource.ok) {
      const returnTo = await provider.interactionResult(req, res, { error: 'invalid_target', error_description: `the only resource is ${mcpResource()}` }, { mergeWithLastSubmission: false });
      return Response.redirect(returnTo, 303);
    }
    const grantId = await approveGrant(provider, {
      personId,
      orgId,
      clientId,
      scopes: [...new Set(scopes)],
      resource: resource.resource ?? mcpResource(),
      oidcScopes: offered.filter((scope) => ['openid', 'profile', 'email', 'offline_access'].includes(scope)),
      ip,
    });
    // The approving account is the one signed in to Gatehouse (docs/protocol.md §5), whatever the provider session said.
    result = { login: { accountId: personId }, consent: { grantId } };
  }
  const returnTo = await provider.interactionResult(req, res, result, { mergeWithLastSubmission: false });
  return Response.redirect(returnTo, 303);
}

function csrfToken(uid: string, personId: string): string {
  return createHmac('sha256', deriveKey(env().authSecret, 'consent-form')).update(`${uid}\n${personId}`).digest('base64url');
}

function csrfValid(presented: string, uid: string, personId: string): boolean {
  const expected = Buffer.from(csrfToken(uid, personId));
  const actual = Buffer.from(presented);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function hostOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || url.protocol.replace(/:$/, '');
  } catch {
    return uri;
  }
}
