// The shapes the connector forms send, checked on the server before lib/connectors checks their content
// (docs/connectors.md: slugs, URLs, headers and client credentials each have their own rules there).
import { z } from 'zod';
import type { AddConnector } from '@/lib/connectors/catalog';
import type { CredentialInput } from '@/lib/connectors/credentials';

export const SLUG = z.string('Give the connector’s slug.').min(1, 'Give the connector’s slug.').max(32, 'A slug is at most 32 characters.');

const text = (max: number, what: string) => z.string(`${what} must be text.`).max(max, `${what} is too long.`);

export const CREDENTIAL = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }).strict(),
  // Header lines as typed, one "Name: value" a line.
  z.object({ kind: z.literal('headers'), headers: text(64 * 1024, 'The header lines') }).strict(),
  z
    .object({
      kind: z.literal('client_credentials'),
      tokenUrl: text(2048, 'The token URL'),
      clientId: text(255, 'The client id'),
      clientSecret: text(1024, 'The client secret'),
      scope: text(1024, 'The scope'),
      resource: text(2048, 'The resource'),
      clientAuth: z.enum(['client_secret_basic', 'client_secret_post']),
    })
    .strict(),
]);

export const NEW_CONNECTOR = z
  .object({
    slug: SLUG,
    url: text(2048, 'The URL'),
    name: text(200, 'The name'),
    description: text(2000, 'The description'),
    timeoutSeconds: z.number('The timeout must be a number of seconds.').int('The timeout must be a whole number of seconds.'),
    credential: CREDENTIAL,
  })
  .strict();

export function credentialInput(credential: z.infer<typeof CREDENTIAL>): CredentialInput {
  if (credential.kind === 'none') return {};
  if (credential.kind === 'headers') return { headers: credential.headers.split(/\r?\n/).filter((line) => line.trim() !== '') };
  const { kind: _kind, scope, resource, ...rest } = credential;
  return { clientCredentials: { ...rest, scope: scope.trim() || undefined, resource: resource.trim() || undefined } };
}

export function newConnectorInput(input: z.infer<typeof NEW_CONNECTOR>): AddConnector {
  return {
    slug: input.slug,
    url: input.url.trim(),
    name: input.name.trim() || input.slug,
    description: input.description,
    timeoutMs: input.timeoutSeconds * 1000,
    ...credentialInput(input.credential),
  };
}
