// `npm run create-owner -- --email you@example.com --org "Your Org" [--name "Your Name"]`
// The production bootstrap: creates the first instance admin, owner of a new organization. The password
// is asked on the terminal (not echoed) or read from the first line of standard input when piped.
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline';
import { closeDatabase, database } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { env } from '@/lib/env';
import { passwordProblem } from '@/lib/auth/passwords';
import { createOwner, normalizeEmail, slugify } from '@/lib/people/accounts';
import { orgSlugProblem } from '@/lib/people/org-slugs';
import { runCli, UsageError } from './run';

const USAGE = 'Usage: npm run create-owner -- --email you@example.com --org "Your Org" [--name "Your Name"]';

runCli(async () => {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, org: { type: 'string' }, name: { type: 'string' } },
    strict: true,
  });
  const email = normalizeEmail(values.email ?? '');
  const orgName = (values.org ?? '').trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || !orgName) throw new UsageError(USAGE);
  const orgSlug = slugify(orgName);
  if (!orgSlug) throw new UsageError('--org needs at least one letter or digit.');
  const slugProblem = orgSlugProblem(orgSlug);
  if (slugProblem) throw new UsageError(`${slugProblem} It comes from --org: choose another organization name.`);
  const name = values.name?.trim() || email.split('@')[0]!;

  const { prisma, pglite } = database();
  await migrate(env().database, pglite);
  if (await prisma.person.findUnique({ where: { email } })) throw new UsageError(`${email} already has an account.`);
  if (await prisma.organization.findUnique({ where: { slug: orgSlug } })) {
    throw new UsageError(`An organization with the address "${orgSlug}" already exists.`);
  }

  const password = await readPassword();
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(`The password ${problem}.`);

  const { person, org } = await createOwner({ email, name, password, orgName, orgSlug });
  console.log(`Created ${person.email}, instance admin and owner of ${org.name}. Sign in at ${env().publicUrl}/login`);
  await closeDatabase();
});

async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const lines = createInterface({ input: process.stdin });
    for await (const line of lines) return line;
    throw new UsageError('No password on standard input.');
  }
  const first = await askHidden('Password: ');
  const second = await askHidden('Repeat the password: ');
  if (first !== second) throw new UsageError('The two passwords differ.');
  return first;
}

/** Reads a line from the terminal without echoing it. */
function askHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stdout.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    let value = '';
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') {
          finish();
          process.stdout.write('\n');
          resolve(value);
          return;
        }
        if (char === '\u0003') {
          finish();
          reject(new UsageError('Cancelled.'));
          return;
        }
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
    };
    stdin.on('data', onData);
  });
}
