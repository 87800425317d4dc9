// Which organizations have a connector (docs/connectors.md, Who may switch it on). Instance admins offer a
// connector to every organization or to listed ones; an org admin switches on, for their own org, only what
// is offered to it. A connector calls its upstream with Gatehouse's own credential, so one org's admin must
// never be able to turn on a server an instance admin set up for another organization.
import type { ChangedBy } from '@/lib/audit/events';
import { inTransaction, type Tx } from '@/lib/db/transaction';
import { audit, connectorBySlug, orgsBySlug } from './connectors';
import { ConnectorError, printable } from './errors';

export type ConnectorOffer = { all: true } | { all: false; orgs: string[] };

/**
 * Sets whom a connector is offered to. An organization no longer offered it has it switched off in the
 * same transaction (its people's calls stop at once), each an audit event of that org.
 */
export async function offerConnector(slug: string, offer: ConnectorOffer, by: ChangedBy): Promise<{ switchedOff: string[] }> {
  return inTransaction(async (tx) => {
    const connector = await connectorBySlug(tx, slug);
    const orgs = offer.all ? [] : await orgsBySlug([...new Set(offer.orgs)], tx);
    await tx.connector.update({ where: { id: connector.id }, data: { offeredToAll: offer.all } });
    await tx.connectorOffer.deleteMany({ where: { connectorId: connector.id, ...(offer.all ? {} : { orgId: { notIn: orgs.map((org) => org.id) } }) } });
    for (const org of orgs) {
      await tx.connectorOffer.upsert({ where: { connectorId_orgId: { connectorId: connector.id, orgId: org.id } }, create: { connectorId: connector.id, orgId: org.id }, update: {} });
    }
    const switchedOff = offer.all
      ? []
      : await tx.orgConnector.findMany({ where: { connectorId: connector.id, orgId: { notIn: orgs.map((org) => org.id) } }, include: { org: { select: { slug: true } } } });
    for (const entry of switchedOff) {
      await tx.orgConnector.delete({ where: { orgId_connectorId: { orgId: entry.orgId, connectorId: connector.id } } });
      await audit(tx, by, 'connector.disabled', { slug, org: entry.org.slug, reason: 'no longer offered' }, entry.orgId);
    }
    await audit(tx, by, 'connector.offered', offer.all ? { slug, to: 'all' } : { slug, to: orgs.map((org) => org.slug).sort() });
    return { switchedOff: switchedOff.map((entry) => entry.org.slug) };
  });
}

/** Offers a connector to one more organization (unless it is offered to all), keeping the rest. */
export async function offerToOrg(slug: string, orgSlug: string, by: ChangedBy): Promise<void> {
  await inTransaction(async (tx) => {
    const connector = await connectorBySlug(tx, slug);
    const [org] = await orgsBySlug([orgSlug], tx);
    if (connector.offeredToAll || (await isOfferedTo(tx, connector.id, org!.id))) return;
    await tx.connectorOffer.create({ data: { connectorId: connector.id, orgId: org!.id } });
    await audit(tx, by, 'connector.offered', { slug, added: org!.slug });
  });
}

/**
 * Switches a connector on or off for one organization. Switching on needs the connector offered to it.
 * Returns whether anything changed.
 */
export async function setEnabled(slug: string, orgSlug: string, enabled: boolean, by: ChangedBy): Promise<boolean> {
  return inTransaction(async (tx) => {
    const connector = await connectorBySlug(tx, slug);
    const [org] = await orgsBySlug([orgSlug], tx);
    const key = { orgId_connectorId: { orgId: org!.id, connectorId: connector.id } };
    const present = await tx.orgConnector.findUnique({ where: key });
    if (Boolean(present) === enabled) return false;
    if (enabled && !connector.offeredToAll && !(await isOfferedTo(tx, connector.id, org!.id))) {
      throw new ConnectorError(`The connector "${printable(slug)}" is not offered to ${printable(orgSlug)}: an instance admin offers it first.`);
    }
    if (enabled) await tx.orgConnector.create({ data: { orgId: org!.id, connectorId: connector.id } });
    else await tx.orgConnector.delete({ where: key });
    await audit(tx, by, enabled ? 'connector.enabled' : 'connector.disabled', { slug, org: orgSlug }, org!.id);
    return true;
  });
}

async function isOfferedTo(tx: Tx, connectorId: string, orgId: string): Promise<boolean> {
  return Boolean(await tx.connectorOffer.findUnique({ where: { connectorId_orgId: { connectorId, orgId } }, select: { orgId: true } }));
}
