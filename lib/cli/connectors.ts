// `npm run connectors -- <command>`: manage connectors, the upstream MCP servers behind /mcp
// (docs/connectors.md). Runs against PostgreSQL while servers run; against the embedded database only
// while the server is stopped (its lock says so clearly otherwise).
//
//   add <slug> <url> [--name N] [--description D] [--header "Name: value"]… [--orgs a,b] [--timeout-seconds S]
//   list
//   refresh <slug>
//   approve <slug> [<tool>…]
//   offer <slug> --all | --orgs a,b       (who may switch it on; an org no longer listed has it switched off)
//   enable <slug> --org <org-slug>        (offers it to that org too: the command line is an instance admin's)
//   disable <slug> --org <org-slug>
//   remove <slug>
import { parseArgs } from 'node:util';
import { FROM_CLI } from '@/lib/audit/events';
import { offerConnector, offerToOrg, setEnabled } from '@/lib/connectors/availability';
import { addConnector, approveTools, refreshConnector } from '@/lib/connectors/catalog';
import { listConnectors, removeConnector } from '@/lib/connectors/connectors';
import { ConnectorError } from '@/lib/connectors/errors';
import { UpstreamError } from '@/lib/connectors/upstream';
import { closeDatabase, database } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { env } from '@/lib/env';
import { runCli, UsageError } from './run';

const USAGE = `Usage: npm run connectors -- <command>
  add <slug> <url> [--name N] [--description D] [--header "Name: value"]... [--orgs org-a,org-b] [--timeout-seconds S]
  list
  refresh <slug>
  approve <slug> [<tool>...]
  offer <slug> --all | --orgs org-a,org-b
  enable <slug> --org <org-slug>
  disable <slug> --org <org-slug>
  remove <slug>`;

runCli(async () => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string' },
      description: { type: 'string' },
      header: { type: 'string', multiple: true },
      orgs: { type: 'string' },
      org: { type: 'string' },
      all: { type: 'boolean' },
      'timeout-seconds': { type: 'string' },
    },
  });
  const [command, slug, ...rest] = positionals;
  if (!command) throw new UsageError(USAGE);
  await migrate(env().database, database().pglite);
  try {
    await run(command, slug, rest, values);
  } catch (error) {
    if (error instanceof ConnectorError || error instanceof UpstreamError) throw new UsageError(error.message);
    throw error;
  } finally {
    await closeDatabase();
  }
});

type Options = { name?: string; description?: string; header?: string[]; orgs?: string; org?: string; all?: boolean; 'timeout-seconds'?: string };

function orgList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((org) => org.trim())
    .filter(Boolean);
}

async function run(command: string, slug: string | undefined, rest: string[], values: Options): Promise<void> {
  const needSlug = () => {
    if (!slug) throw new UsageError(USAGE);
    return slug;
  };
  switch (command) {
    case 'add': {
      const url = rest[0];
      if (!slug || !url || rest.length > 1) throw new UsageError(USAGE);
      const seconds = values['timeout-seconds'];
      const added = await addConnector(
        {
          slug,
          url,
          name: values.name,
          description: values.description,
          headers: values.header,
          orgs: orgList(values.orgs),
          timeoutMs: seconds === undefined ? undefined : Number(seconds) * 1000,
        },
        FROM_CLI,
      );
      console.log(`Added connector ${added.slug} with ${added.tools} tool(s), pinned as they are now.`);
      for (const problem of added.problems) console.log(`  held: ${problem.name}: ${problem.problem}`);
      return;
    }
    case 'list': {
      const connectors = await listConnectors();
      if (connectors.length === 0) console.log('No connectors.');
      for (const connector of connectors) {
        console.log(
          `${connector.slug}  ${connector.name}  ${connector.url}  (${connector.status}; credential: ${connector.credentialHeaders} header(s); offered to: ${connector.offeredToAll ? 'all' : connector.offeredTo.join(', ') || 'none'}; on for: ${connector.orgs.join(', ') || 'none'})`,
        );
        if (connector.lastRefreshError) console.log(`  last refresh failed: ${connector.lastRefreshError}`);
        for (const tool of connector.tools) console.log(`  ${tool.exposedName}  ${tool.status}${tool.holdReason ? ` (${tool.holdReason})` : ''}`);
        for (const problem of connector.problems) console.log(`  not offered: ${problem.name}: ${problem.problem}`);
      }
      return;
    }
    case 'refresh': {
      const outcome = await refreshConnector(needSlug(), FROM_CLI);
      if (!outcome.ok) throw new UsageError(`Refreshing ${outcome.slug} failed: ${outcome.error}.`);
      console.log(`Refreshed ${outcome.slug}: ${outcome.held.length} held for approval, ${outcome.released.length} back as pinned, ${outcome.removed.length} removed.`);
      for (const name of outcome.held) console.log(`  held: ${name} (approve with: npm run connectors -- approve ${outcome.slug} ${name})`);
      for (const problem of outcome.problems) console.log(`  not offered: ${problem.name}: ${problem.problem}`);
      return;
    }
    case 'approve': {
      const approved = await approveTools(needSlug(), rest, FROM_CLI);
      console.log(approved.length ? `Approved: ${approved.join(', ')}.` : 'Nothing was held for approval.');
      return;
    }
    case 'offer': {
      const orgs = orgList(values.orgs);
      if (rest.length || Boolean(values.all) === (values.orgs !== undefined)) throw new UsageError(USAGE); // exactly one of them
      const { switchedOff } = await offerConnector(needSlug(), values.all ? { all: true } : { all: false, orgs }, FROM_CLI);
      console.log(`${slug} is offered to ${values.all ? 'every organization' : orgs.join(', ') || 'no organization'}.`);
      if (switchedOff.length) console.log(`  switched off for ${switchedOff.join(', ')}, no longer offered it.`);
      return;
    }
    case 'enable':
    case 'disable': {
      if (!values.org || rest.length) throw new UsageError(USAGE);
      if (command === 'enable') await offerToOrg(needSlug(), values.org, FROM_CLI);
      const changed = await setEnabled(needSlug(), values.org, command === 'enable', FROM_CLI);
      console.log(`${slug} is ${command === 'enable' ? 'enabled' : 'disabled'} for ${values.org}${changed ? '' : ' (it already was)'}.`);
      return;
    }
    case 'remove':
      if (rest.length) throw new UsageError(USAGE);
      await removeConnector(needSlug(), FROM_CLI);
      console.log(`Removed connector ${slug}.`);
      return;
    default:
      throw new UsageError(USAGE);
  }
}
