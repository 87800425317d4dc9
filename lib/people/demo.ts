// Demo data: two organizations and three people, so a fresh installation can be tried at once.
// Never written into a database that already has people, and never with the well-known default
// password outside the embedded database.
import { DEFAULT_DEMO_PASSWORD } from '@/lib/env';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { hashPassword } from '@/lib/auth/passwords';

export const DEMO_PEOPLE = [
  { email: 'owner@acme.test', name: 'Olivia Owner', instanceAdmin: true },
  { email: 'member@acme.test', name: 'Max Member', instanceAdmin: false },
  { email: 'viewer@acme.test', name: 'Vera Viewer', instanceAdmin: false },
] as const;

export class DemoSeedRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoSeedRefusedError';
  }
}

export type SeedOutcome = { seeded: true } | { seeded: false; reason: string };

export async function seedDemoData(prisma: PrismaClient, options: { password: string; databaseKind: 'embedded' | 'postgres'; reachableFromNetwork?: boolean }): Promise<SeedOutcome> {
  if (options.databaseKind !== 'embedded' && options.password === DEFAULT_DEMO_PASSWORD) {
    throw new DemoSeedRefusedError('Refusing to seed demo people with the default password into PostgreSQL: set DEMO_PASSWORD to a password of your own.');
  }
  // An instance admin whose password is printed in the README must never be reachable from a network.
  if (options.reachableFromNetwork && options.password === DEFAULT_DEMO_PASSWORD) {
    throw new DemoSeedRefusedError('Refusing to seed demo people with the default password on a server reachable from the network: set DEMO_PASSWORD to a password of your own.');
  }
  if ((await prisma.person.count()) > 0) {
    return { seeded: false, reason: 'the database already has people' };
  }
  // Hash before the transaction: the embedded database has one connection, and a transaction must not
  // sit open while slow work runs outside it.
  const passwordHash = await hashPassword(options.password);
  await prisma.$transaction(async (tx) => {
    const acme = await tx.organization.create({ data: { slug: 'acme', name: 'Acme', planStatus: 'active' } });
    const initech = await tx.organization.create({
      data: { slug: 'initech', name: 'Initech', planStatus: 'inactive' },
    });
    const created = [];
    for (const person of DEMO_PEOPLE) {
      created.push(
        await tx.person.create({
          data: { email: person.email, name: person.name, passwordHash, isInstanceAdmin: person.instanceAdmin },
        }),
      );
    }
    const [owner, member, viewer] = created;
    await tx.membership.createMany({
      data: [
        { personId: owner!.id, orgId: acme.id, role: 'owner' },
        { personId: owner!.id, orgId: initech.id, role: 'member' },
        { personId: member!.id, orgId: acme.id, role: 'member' },
        { personId: viewer!.id, orgId: acme.id, role: 'viewer' },
      ],
    });
    await tx.auditEvent.create({ data: { type: 'demo.seeded', data: { people: DEMO_PEOPLE.length } } });
  });
  return { seeded: true };
}
