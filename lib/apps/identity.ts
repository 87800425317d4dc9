// Which app a client registration belongs to (docs/protocol.md §3). People recognise "Claude" or "Cursor",
// not a client_id: every person who connects one registers a client of their own, so the registrations
// of one product are grouped into an app by what they carry. Pure: no database, no network.
//
// - A Client ID Metadata Document URL is its own app: the URL is the identity, proven by serving it.
// - A confidential client an admin registered by hand is its own app.
// - A dynamic (RFC 7591) registration is keyed by where its authorization responses go — the sorted set
//   of its non-loopback redirect hosts and private-use schemes — plus its client_name, plus its
//   software_id when it sends one. Never by software_id alone: it is self-asserted (RFC 7591 §2.2), and a
//   registration with another redirect host must not inherit an app's decisions by copying it. Two
//   different host sets always make two different apps.
// - A loopback-only registration (RFC 8252 §7.3: http://localhost, 127.0.0.1, [::1]) has no host to go
//   by: it is keyed by client_name plus software_id and client_uri, and can escape a decision by renaming.
//
// `marks` are the hosts and schemes an app redirects to (a metadata document app: the document's host),
// what a block broader than one app matches on (decisions.ts).
// Every field read here comes from an anonymous registrant: anything that is not what it should be is
// ignored, never thrown on.

export type AppKind = 'metadata_document' | 'admin' | 'redirects' | 'loopback';

export type AppEvidence =
  | { kind: 'metadata_document'; documentUrl: string }
  | { kind: 'admin'; clientId: string; hosts: string[]; schemes: string[] }
  | { kind: 'redirects'; hosts: string[]; schemes: string[]; name: string | null; softwareId: string | null }
  | { kind: 'loopback'; name: string | null; softwareId: string | null; clientUri: string | null; clientId: string | null };

export type AppIdentity = {
  /** Unique per app; registrations with the same key are the same app. */
  key: string;
  kind: AppKind;
  displayName: string;
  /** `host:<host[:port]>` and `scheme:<scheme>`, sorted (a metadata document's: its own host); empty for loopback-only apps. */
  marks: string[];
  evidence: AppEvidence;
};

/** What a registration carries (RFC 7591 metadata names), as sent: nothing about it is trusted. */
export type RegistrationFacts = {
  client_id: unknown;
  /** The ClientRegistration kind: 'dynamic' | 'metadata_document' | 'admin'. */
  registration: unknown;
  redirect_uris?: unknown;
  client_name?: unknown;
  software_id?: unknown;
  client_uri?: unknown;
};

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Longest text kept from any field: registration already limits them (registration.ts), this is a backstop. */
const TEXT_LIMIT = 2000;

export function appIdentity(input: RegistrationFacts): AppIdentity {
  const clientId = text(own(input, 'client_id')) ?? '';
  const registration = own(input, 'registration');
  const { hosts, schemes, firstHost } = redirectTargets(own(input, 'redirect_uris'));
  const marks = [...hosts.map((host) => `host:${host}`), ...schemes.map((scheme) => `scheme:${scheme}`)];
  const displayed = displayText(own(input, 'client_name'));
  const name = displayed === null ? null : comparable(displayed);
  const softwareId = text(own(input, 'software_id'));

  if (registration === 'metadata_document' && clientId) {
    return {
      key: `document:${clientId}`,
      kind: 'metadata_document',
      displayName: displayed ?? hostOf(clientId) ?? clientId,
      // The document's host is proven (it served the document over https), and it is the same party as
      // a registration redirecting there: a block on either covers the other.
      marks: documentMarks(clientId),
      evidence: { kind: 'metadata_document', documentUrl: clientId },
    };
  }
  if (registration === 'admin' && clientId) {
    return {
      key: `admin:${clientId}`,
      kind: 'admin',
      displayName: displayed ?? firstHost ?? clientId,
      marks,
      evidence: { kind: 'admin', clientId, hosts, schemes },
    };
  }
  if (marks.length > 0) {
    return {
      key: `redirects:${JSON.stringify({ marks, name, softwareId })}`,
      kind: 'redirects',
      displayName: displayed ?? firstHost ?? schemes[0] ?? clientId,
      marks,
      evidence: { kind: 'redirects', hosts, schemes, name: displayed, softwareId },
    };
  }
  const clientUri = text(own(input, 'client_uri'));
  // With no name, software_id or client_uri there is nothing to group by: the registration is an app of
  // its own rather than one "unnamed" app that every anonymous registration would share.
  const alone = name === null && softwareId === null && clientUri === null;
  return {
    key: `loopback:${JSON.stringify(alone ? { clientId } : { name, softwareId, clientUri })}`,
    kind: 'loopback',
    displayName: displayed ?? clientId,
    marks: [],
    evidence: { kind: 'loopback', name: displayed, softwareId, clientUri, clientId: alone ? clientId : null },
  };
}

/** The sorted, distinct non-loopback hosts (with a non-default port) and private-use schemes of the URIs. */
function redirectTargets(value: unknown): { hosts: string[]; schemes: string[]; firstHost: string | null } {
  const hosts = new Set<string>();
  const schemes = new Set<string>();
  let firstHost: string | null = null;
  if (!Array.isArray(value)) return { hosts: [], schemes: [], firstHost };
  for (const uri of value) {
    if (typeof uri !== 'string' || uri.length > TEXT_LIMIT) continue;
    const url = URL.parse(uri);
    if (!url) continue;
    const scheme = url.protocol.slice(0, -1).toLowerCase();
    if (scheme === 'http' || scheme === 'https') {
      // URL lower-cases the host and drops the scheme's default port.
      if (!url.hostname || LOOPBACK_HOSTS.has(url.hostname)) continue;
      hosts.add(url.host);
      firstHost ??= url.hostname;
    } else {
      schemes.add(scheme);
    }
  }
  return { hosts: [...hosts].sort(), schemes: [...schemes].sort(), firstHost };
}

/** An own property only: `__proto__`, `constructor` and the like never come from the prototype. */
function own(input: unknown, field: string): unknown {
  if (typeof input !== 'object' || input === null) return undefined;
  return Object.hasOwn(input, field) ? (input as Record<string, unknown>)[field] : undefined;
}

/** A string field trimmed, or null when it is missing, empty, not a string or too long. */
function text(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > TEXT_LIMIT) return null;
  const trimmed = value.trim();
  return trimmed ? trimmed : null;
}

/** The name as shown: trimmed, inner runs of white space made one space. */
function displayText(value: unknown): string | null {
  const trimmed = text(value);
  return trimmed === null ? null : trimmed.replace(/\s+/gu, ' ');
}

/** The name as compared: "Claude", " claude " and "CLAUDE" are one name (NFKC, then lower case). */
function comparable(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

/** `host:<host[:port]>` of a metadata document URL, spelled as redirect hosts are. */
function documentMarks(documentUrl: string): string[] {
  const url = URL.parse(documentUrl);
  return url?.host ? [`host:${url.host}`] : [];
}

function hostOf(uri: string): string | null {
  return URL.parse(uri)?.hostname || null;
}
