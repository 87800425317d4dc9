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
import { NOTE_MAX_LENGTH, pendingRequestsOf, requestAccess, type AskRefusal } from '@/lib/apps/requests';
import { approveGrant } from '@/lib/grants/approve';
import { ownValue } from '@/lib/own-keys';
import { type AvailableTool, toolsAvailableTo } from '@/lib/mcp/gates';
import { type ListedConnectorTool, listedConnectorTools } from '@/lib/connectors/served';
import { LIFETIMES, oauthProvider } from './provider';
import { mcpResource, resourceParameter } from './resource';
import { isMcpScope, MCP_SCOPES, type McpScope } from './scopes';

/** A tool as the consent screen lists it. */
export type ConsentTool = { name: string; title: string };

/** How Gatehouse knows who the app is: the evidence it has, or none. */
export type ClientEvidence =
  /** A Client ID Metadata Document fetched over https from this domain. */
  | { kind: 'domain'; host: string }
  /** Registered by an administrator of this Gatehouse. */
  | { kind: 'admin' }
  /** Registered itself (RFC 7591): only its redirect host says anything about it. */
  | { kind: 'none' };

export type ConsentOrg = OrgChoice & {
  canRunTools: boolean;
  /** The scopes ticked for this org before the person touches a box: the ones its role can use here. */
  usableScopes: McpScope[];
  /** The tools the app could call here, for each set of ticked scopes (key: `scopeKey`). */
  tools: Record<string, ConsentTool[]>;
};

/**
 * Who blocked the app in one org: an admin of the org or an administrator of this Gatehouse (`everywhere`),
 * by name when that person still exists; `via` names the blocked app when the block was put on another app
 * this one shares a redirect host or scheme with (lib/apps/decisions.ts).
 */
export type BlockedIn = { orgName: string; blockedBy: string | null; everywhere: boolean; via: string | null };

/**
 * An org whose "approved apps only" policy refuses the app, where the person may ask its admins to approve
 * it (lib/apps/requests.ts): whether they already asked, and how the last ask went.
 */
export type AskableOrg = {
  orgId: string;
  name: string;
  pending: { askedAt: Date; expiresAt: Date } | null;
  /** True right after this person's ask was taken (the handler's redirect says so). */
  justAsked: boolean;
  /** Why the last ask was refused, in words. */
  error: string | null;
};

export type ConsentView =
  | { kind: 'expired' }
  | { kind: 'sign-in'; loginPath: string }
  | {
      kind: 'blocked';
      uid: string;
      csrf: string;
      person: { name: string; email: string };
      client: { name: string };
      /** Every org the person could otherwise use, with who blocked the app there. */
      blockedIn: BlockedIn[];
    }
  | {
      kind: 'ask';
      uid: string;
      csrf: string;
      person: { name: string; email: string };
      client: { name: string; unverified: boolean; identityHost: string | null; evidence: ClientEvidence };
      redirectHost: string;
      /** What the app gets access to, by name: "Gatehouse at <host>". */
      resource: { name: string; host: string };
      scopes: { scope: McpScope; description: string }[];
      sharesProfile: boolean;
      orgs: ConsentOrg[];
      /** What is picked and ticked when the page opens. */
      selection: { orgId: string | null; scopes: McpScope[] };
      /** How long a connection keeps working unused: the refresh token's lifetime (provider.ts). */
      inactivityDays: number;
      /** Whether the client may use refresh tokens (provider.ts issues them to every client allowed the grant). */
      refreshes: boolean;
      /** An access token's lifetime, which is all a client without refresh tokens gets. */
      accessHours: number;
      error: string | null;
      /** Orgs where the person can ask an admin to approve the app instead (docs/protocol.md §5). */
      askable: AskableOrg[];
    };

/** The key of a set of ticked scopes in `ConsentOrg.tools`: the scopes in the order offered, space-separated. */
export function scopeKey(offered: readonly McpScope[], ticked: readonly McpScope[]): string {
  return offered.filter((scope) => ticked.includes(scope)).join(' ');
}

/**
 * What a failed submit sends back through the URL (`/consent/<uid>?error=…&org=…&scope=…`), so that the
 * screen keeps what was picked and ticked. Anyone can write a URL: `selectionFrom` keeps only scopes the
 * interaction offered and an org the person may pick, and ignores the rest.
 */
export type ReturnedSelection = { error: string | null; org: string | null; scopes: string[]; asked?: string | null; askError?: string | null };

/** What the page says when an ask was refused, by the code the ask handler sends back in the URL. */
const ASK_MESSAGES: Record<AskRefusal, string> = {
  not_member: 'You are not an active member of that organization.',
  not_askable: 'This app cannot be requested there: it was approved or blocked meanwhile, or the organization changed its policy. Open this page again from the app.',
  note_too_long: `Your request was not sent: the note is too long (at most ${NOTE_MAX_LENGTH} characters).`,
  note_characters: 'Your request was not sent: the note must not contain invisible, bidirectional or control characters.',
  rate_limited: 'Your request was not sent: you have asked too often in the last hour. Try again later.',
};

export async function loadConsent(uid: string, cookieHeader: string, returned: ReturnedSelection): Promise<ConsentView> {
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
  const offered = requested.filter(isMcpScope);
  const choices = await orgChoicesFor(person.id, clientId);
  const clientName = client.clientName ?? 'An unnamed app';
  const csrf = csrfToken(uid, person.id);

  // Blocked wherever the person could otherwise connect it: a page that says so and by whom, no question.
  const usable = choices.filter((org) => org.refusal !== 'plan_inactive');
  if (usable.length > 0 && usable.every((org) => org.refusal === 'blocked')) {
    // The page names the app people recognise, not this one registration of it.
    const appName = (await db().oAuthClient.findUnique({ where: { clientId }, select: { app: { select: { displayName: true } } } }))?.app?.displayName ?? clientName;
    const blockedIn = usable.map(
      (org): BlockedIn => ({
        orgName: org.name,
        blockedBy: org.block?.decidedByName ?? null,
        everywhere: org.block?.everywhere ?? false,
        via: org.block && org.block.shared.length > 0 ? org.block.appName : null,
      }),
    );
    return { kind: 'blocked', uid, csrf, person: { name: person.name, email: person.email }, client: { name: appName }, blockedIn };
  }

  const restrictions = await db().toolRestriction.findMany({ where: { orgId: { in: choices.map((org) => org.orgId) } }, select: { orgId: true, toolName: true } });
  // The tools of the connectors each org switched on are part of what the app could call there.
  const connectorTools = new Map(await Promise.all(choices.map(async (org) => [org.orgId, (await listedConnectorTools(org.orgId)).map(availableConnectorTool)] as const)));
  const orgs = choices.map((org): ConsentOrg => {
    const restrictedTools = new Set(restrictions.filter((row) => row.orgId === org.orgId).map((row) => row.toolName));
    const others = connectorTools.get(org.orgId) ?? [];
    const toolsWith = (scopes: McpScope[]) => toolsAvailableTo({ role: org.role, scopes, restrictedTools }, others).map((tool) => ({ name: tool.name, title: tool.title }));
    const tools = Object.fromEntries(subsets(offered).map((scopes) => [scopeKey(offered, scopes), toolsWith(scopes)]));
    // A scope is worth ticking here when some tool that needs it is open to this role with it.
    const usableScopes = offered.filter((scope) => toolsAvailableTo({ role: org.role, scopes: [scope], restrictedTools }, others).some((tool) => tool.scope === scope));
    return { ...org, canRunTools: roleCan(org.role, 'tool:execute'), usableScopes, tools };
  });

  // Where the policy is all that refuses the app, the person can ask instead of being turned away.
  const notApproved = choices.filter((org) => org.refusal === 'not_approved');
  const pending = await pendingRequestsOf(
    person.id,
    clientId,
    notApproved.map((org) => org.orgId),
  );
  const askError = returned.askError ? (ownValue(ASK_MESSAGES, returned.askError) ?? null) : null;
  const askable = notApproved.map(
    (org): AskableOrg => ({
      orgId: org.orgId,
      name: org.name,
      pending: pending.get(org.orgId) ?? null,
      justAsked: returned.asked === org.orgId && pending.has(org.orgId),
      error: returned.org === org.orgId ? askError : null,
    }),
  );

  return {
    kind: 'ask',
    uid,
    csrf,
    askable,
    person: { name: person.name, email: person.email },
    client: {
      name: clientName,
      unverified: evidenceOf(clientId, record?.registration).kind === 'none',
      identityHost: record?.registration === 'metadata_document' ? new URL(clientId).hostname : null,
      evidence: evidenceOf(clientId, record?.registration),
    },
    redirectHost: hostOf(String(interaction.params.redirect_uri ?? client.redirectUris?.[0] ?? '')),
    resource: { name: 'Gatehouse', host: new URL(mcpResource()).host },
    scopes: offered.map((scope) => ({ scope, description: MCP_SCOPES[scope] })),
    sharesProfile: requested.includes('profile') || requested.includes('email'),
    orgs,
    selection: selectionFrom(returned, offered, orgs),
    inactivityDays: Math.round(LIFETIMES.RefreshToken / (24 * 60 * 60)),
    refreshes: client.grantTypeAllowed('refresh_token'),
    accessHours: Math.round(LIFETIMES.AccessToken / (60 * 60)),
    // A refused ask for an org that offers no ask form (approved or blocked meanwhile, not the person's) is said at the top.
    error: consentErrorMessage(returned.error) ?? (askError && !askable.some((org) => org.orgId === returned.org) ? askError : null),
  };
}

/**
 * The pick and the ticks the page opens with. By default the first eligible org and the scopes its role can
 * use there. After a failed submit (a known error code), what came back in the URL — but only an eligible org
 * of this person and only scopes this interaction offered: anything else is dropped, never shown as chosen.
 */
function selectionFrom(returned: ReturnedSelection, offered: McpScope[], orgs: ConsentOrg[]): { orgId: string | null; scopes: McpScope[] } {
  const eligible = orgs.filter((org) => org.eligible);
  const returnedOrg = eligible.find((org) => org.orgId === returned.org);
  const org = returnedOrg ?? eligible[0] ?? null;
  if (consentErrorMessage(returned.error) === null) return { orgId: org?.orgId ?? null, scopes: org?.usableScopes ?? [] };
  return { orgId: org?.orgId ?? null, scopes: offered.filter((scope) => returned.scopes.includes(scope)) };
}

function evidenceOf(clientId: string, registration: string | undefined): ClientEvidence {
  // ensureClientRecord files every https client_id as a metadata document: the provider fetched it over https.
  if (registration === 'metadata_document') return { kind: 'domain', host: new URL(clientId).hostname };
  if (registration === 'admin') return { kind: 'admin' };
  return { kind: 'none' };
}

/** Every subset of the offered scopes (there are two MCP scopes, so at most four). */
function subsets(scopes: McpScope[]): McpScope[][] {
  const all: McpScope[][] = [[]];
  for (const scope of scopes) for (const subset of [...all]) all.push([...subset, scope]);
  return all;
}

/**
 * The app a sign-in is for, when the way back (already made safe by safeCallbackPath) is the consent screen
 * of a live authorization request: its registered name, read from the provider — never from the URL.
 */
export async function appSigningInFor(callbackPath: string): Promise<string | null> {
  const uid = /^\/consent\/([A-Za-z0-9_-]{1,128})$/.exec(callbackPath)?.[1];
  if (!uid) return null;
  const provider = await oauthProvider();
  const interaction = await provider.Interaction.find(uid);
  if (!interaction?.params.client_id) return null;
  const client = await provider.Client.find(String(interaction.params.client_id));
  return client ? (client.clientName ?? 'An unnamed app') : null;
}

/**
 * The guards both forms of the consent screen pass before anything is done: sent from Gatehouse's own
 * page (Origin), by a signed-in person whose account is not disabled (the session cookie may outlive
 * it), within 16 KiB and `maxFields` fields counted before parsing, with the CSRF token bound to this
 * interaction and person, for the live interaction of this browser. A Response when one fails: a
 * refusal page, or a redirect back to the consent screen, which says what became of the request.
 */
async function readConsentForm(request: Request, uid: string, limits: { maxFields: number; tooLarge: string }) {
  const { publicUrl } = env();
  if (request.headers.get('origin') !== new URL(publicUrl).origin) {
    return consentErrorPage(403, 'This form must be sent from the Gatehouse consent page.');
  }
  const consentPath = `${publicUrl}/consent/${encodeURIComponent(uid)}`;
  const personId = await signedInPersonId(request.headers);
  if (!personId) return Response.redirect(consentPath, 303);
  const person = await db().person.findUnique({ where: { id: personId }, select: { id: true, name: true, email: true, disabledAt: true } });
  if (!person || person.disabledAt) return Response.redirect(consentPath, 303);
  const text = await readLimitedBody(request, 16 * 1024);
  if (text === null || countFormFields(text) > limits.maxFields) return consentErrorPage(413, limits.tooLarge);
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
  return { form, personId, person, details, ip, consentPath, provider, req, res };
}

/** Handles the consent form: Allow or Deny. Answers with a redirect, back to the client or the form. */
export async function decideConsent(request: Request, uid: string): Promise<Response> {
  // The form holds the token, the decision, the organization and one field per scope.
  const read = await readConsentForm(request, uid, { maxFields: 64, tooLarge: 'The consent form is too large.' });
  if (read instanceof Response) return read;
  const { form, personId, details, ip, consentPath, provider, req, res } = read;
  const clientId = String(details.params.client_id);

  let result: Parameters<Provider['interactionResult']>[2];
  if (form.get('decision') !== 'allow') {
    await recordAudit({ type: 'consent.denied', actorPersonId: personId, clientId, ip, data: {} });
    result = { error: 'access_denied', error_description: 'The person did not allow access.' };
  } else {
    const scopes = form.getAll('scope').map(String).filter(isMcpScope);
    const offered = String(details.params.scope ?? '').split(' ');
    const orgId = String(form.get('org') ?? '');
    // Back to the form with what was picked and ticked; the page checks it all again (selectionFrom).
    const again = (error: ConsentErrorCode) => {
      const query = new URLSearchParams({ error });
      if (orgId) query.set('org', orgId.slice(0, 64));
      for (const scope of new Set(scopes)) if (offered.includes(scope)) query.append('scope', scope);
      return Response.redirect(`${consentPath}?${query.toString()}`, 303);
    };
    if (scopes.length === 0 || scopes.some((scope) => !offered.includes(scope))) return again('scope');
    const choice = (await orgChoicesFor(personId, clientId)).find((org) => org.orgId === orgId);
    if (!choice?.eligible) return again('org');

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

/**
 * Handles "Ask an admin of <org>" (docs/protocol.md §5): the person asks an org whose "approved apps only"
 * policy refuses the app to approve it (lib/apps/requests.ts). Guarded like the decision form: the
 * Origin, the size of the body, the form token bound to this request and this person, and the live
 * interaction of this browser. Answers with a redirect back to the consent screen, which then says that
 * the request was sent, or why not.
 */
export async function askForAccess(request: Request, uid: string): Promise<Response> {
  // The token, the org and a note of at most 500 characters (each up to 12 bytes percent-encoded).
  const read = await readConsentForm(request, uid, { maxFields: 8, tooLarge: 'The request form is too large.' });
  if (read instanceof Response) return read;
  const { form, person, details, ip, consentPath } = read;
  const orgId = String(form.get('organization') ?? '').slice(0, 64);
  const result = await requestAccess(person, orgId, String(details.params.client_id), String(form.get('note') ?? ''), ip);
  const query = result.ok ? new URLSearchParams({ asked: orgId }) : new URLSearchParams({ ask_error: result.refusal, org: orgId });
  return Response.redirect(`${consentPath}?${query.toString()}`, 303);
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

/** A connector's tool as the consent screen lists it: its title (the upstream's words, shown as text) or its name. */
function availableConnectorTool({ exposedName, definition, scope }: ListedConnectorTool): AvailableTool {
  return { name: exposedName, title: definition.title ?? exposedName, scope, permission: null };
}
