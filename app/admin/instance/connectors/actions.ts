'use server';
// The instance console's connector actions (docs/console.md, Connectors): thin adapters over
// lib/connectors, each through instanceAction (an instance admin, the input parsed on the server). What an
// admin enters as a credential — header values, a client secret — goes in and never comes back out: no
// answer here carries it, and the refusals of lib/connectors never quote it.
import { z } from 'zod';
import { instanceAction } from '@/lib/admin/action';
import type { ChangedBy } from '@/lib/audit/events';
import { offerConnector } from '@/lib/connectors/availability';
import { addConnector, refreshConnector, replaceCredential, testConnection, updateConnector } from '@/lib/connectors/catalog';
import { removeConnector, setConnectorStatus } from '@/lib/connectors/connectors';
import { invalid } from '@/lib/admin/errors';
import { CREDENTIAL, credentialInput, NEW_CONNECTOR, newConnectorInput, SLUG } from './inputs';

const by = (personId: string, ip: string): ChangedBy => ({ actorPersonId: personId, ip, via: 'console' });

export const testConnectionAction = instanceAction(NEW_CONNECTOR, (_admin, input) => testConnection(newConnectorInput(input)));

export const addConnectorAction = instanceAction(NEW_CONNECTOR, (admin, input, { ip }) => addConnector(newConnectorInput(input), by(admin.personId, ip)));

const EDIT = z
  .object({
    slug: SLUG,
    name: z.string().max(200, 'The name is too long (at most 100 characters).'),
    description: z.string().max(2000, 'The description is too long (at most 1000 characters).'),
    url: z.string().max(2048, 'The URL is longer than 2048 characters.'),
    timeoutSeconds: z.number('The timeout must be a number of seconds.').int('The timeout must be a whole number of seconds.'),
  })
  .strict();

export const updateConnectorAction = instanceAction(EDIT, (admin, { slug, timeoutSeconds, ...fields }, { ip }) =>
  updateConnector(slug, { ...fields, url: fields.url.trim(), timeoutMs: timeoutSeconds * 1000 }, by(admin.personId, ip)),
);

const ROTATE = z.object({ slug: SLUG, credential: z.union([CREDENTIAL, z.object({ kind: z.literal('client_secret'), clientSecret: z.string().max(1024) }).strict()]) }).strict();

export const replaceCredentialAction = instanceAction(ROTATE, (admin, { slug, credential }, { ip }) =>
  replaceCredential(slug, credential.kind === 'client_secret' ? { clientSecret: credential.clientSecret } : credentialInput(credential), by(admin.personId, ip)),
);

export const refreshConnectorAction = instanceAction(z.object({ slug: SLUG }).strict(), (admin, { slug }, { ip }) => refreshConnector(slug, by(admin.personId, ip)));

export const setConnectorStatusAction = instanceAction(z.object({ slug: SLUG, status: z.enum(['active', 'disabled']) }).strict(), (admin, { slug, status }, { ip }) =>
  setConnectorStatus(slug, status, by(admin.personId, ip)),
);

const OFFER = z.object({ slug: SLUG, all: z.boolean(), orgs: z.array(z.string().min(1).max(63)).max(1000) }).strict();

export const offerConnectorAction = instanceAction(OFFER, (admin, { slug, all, orgs }, { ip }) => offerConnector(slug, all ? { all: true } : { all: false, orgs }, by(admin.personId, ip)));

export const removeConnectorAction = instanceAction(z.object({ slug: SLUG, confirm: z.string().max(100) }).strict(), async (admin, { slug, confirm }, { ip }) => {
  // Typed by the admin, checked here: a forged call without it removes nothing.
  if (confirm !== slug) throw invalid(`Type the connector's slug, ${slug}, to confirm: nothing was removed.`);
  await removeConnector(slug, by(admin.personId, ip));
  return slug;
});
