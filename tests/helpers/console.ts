// Data the console tests need beyond the demo: more organizations and people, written straight into the
// server's database (see inspect.ts: the embedded database restarts the server, so use the returned one).
import bcrypt from 'bcryptjs';
import { randomUUID } from 'node:crypto';
import { inspectDatabase, type Query } from './inspect';
import type { RunningServer } from './server';

export type SeedPerson = { email: string; name: string; role: 'owner' | 'admin' | 'member' | 'viewer'; password: string };

/** Adds an organization with the given people (created when their email is new); returns the server to use next. */
export async function addOrg(server: RunningServer, org: { slug: string; name: string }, people: SeedPerson[]): Promise<RunningServer> {
  const { server: next } = await inspectDatabase(server, async (query) => {
    const orgId = randomUUID();
    await query(`INSERT INTO organizations (id, slug, name, updated_at) VALUES ($1, $2, $3, now())`, [orgId, org.slug, org.name]);
    for (const person of people) {
      const personId = await ensurePerson(query, person);
      await query(`INSERT INTO memberships (id, person_id, org_id, role, updated_at) VALUES ($1, $2, $3, $4::role, now())`, [randomUUID(), personId, orgId, person.role]);
    }
  });
  return next;
}

async function ensurePerson(query: Query, person: SeedPerson): Promise<string> {
  const [existing] = await query<{ id: string }>(`SELECT id FROM people WHERE email = $1`, [person.email]);
  if (existing) return existing.id;
  const id = randomUUID();
  const hash = await bcrypt.hash(person.password, 4);
  await query(`INSERT INTO people (id, email, name, password_hash, updated_at) VALUES ($1, $2, $3, $4, now())`, [id, person.email, person.name, hash]);
  return id;
}
