// `npm run connectors -- <command>`: manage connectors, the upstream MCP servers behind /mcp
// (docs/connectors.md). Runs against PostgreSQL while servers run; against the embedded database only
// while the server is stopped (its lock says so clearly otherwise).
//
//   add <slug> <url> [--name N] [--description D] [--header "Name: value"]… [--orgs a,b] [--timeout-seconds S]
//   list
//   refresh <slug>
//   approve <slug> [<tool>…]
//   enable <slug> --org <org-slug>
//   disable <slug> --org <org-slug>
//   remove <slug>
import { parseArgs } from 'node:util';
import { addConnector, approveTools, ConnectorError, listConnectors, refreshConnector, removeConnector, setEnabled } from '@/lib/connectors/connectors';
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

type Options = { name?: string; description?: string; header?: string[]; orgs?: string; org?: string; 'timeout-seconds'?: string };

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
      const added = await addConnector({
        slug,
        url,
        name: values.name,
        description: values.description,
        headers: values.header,
        orgs: values.orgs
          ? values.orgs
              .split(',')
              .map((org) => org.trim())
              .filter(Boolean)
          : [],
        timeoutMs: seconds === undefined ? undefined : Number(seconds) * 1000,
      });
      console.log(`Added connector ${added.slug} with ${added.tools} tool(s), pinned as they are now.`);
      for (const problem of added.problems) console.log(`  held: ${problem.name}: ${problem.problem}`);
      return;
    }
    case 'list': {
      const connectors = await listConnectors();
      if (connectors.length === 0) console.log('No connectors.');
      for (const connector of connectors) {
        console.log(
          `${connector.slug}  ${connector.name}  ${connector.url}  (${connector.status}; credential: ${connector.credentialHeaders} header(s); orgs: ${connector.orgs.join(', ') || 'none'})`,
        );
        if (connector.lastRefreshError) console.log(`  last refresh failed: ${connector.lastRefreshError}`);
        for (const tool of connector.tools) console.log(`  ${tool.exposedName}  ${tool.status}${tool.holdReason ? ` (${tool.holdReason})` : ''}`);
        for (const problem of connector.problems) console.log(`  not offered: ${problem.name}: ${problem.problem}`);
      }
      return;
    }
    case 'refresh': {
      const outcome = await refreshConnector(needSlug());
      if (!outcome.ok) throw new UsageError(`Refreshing ${outcome.slug} failed: ${outcome.error}.`);
      console.log(`Refreshed ${outcome.slug}: ${outcome.held.length} held for approval, ${outcome.released.length} back as pinned, ${outcome.removed.length} removed.`);
      for (const name of outcome.held) console.log(`  held: ${name} (approve with: npm run connectors -- approve ${outcome.slug} ${name})`);
      for (const problem of outcome.problems) console.log(`  not offered: ${problem.name}: ${problem.problem}`);
      return;
    }
    case 'approve': {
      const approved = await approveTools(needSlug(), rest);
      console.log(approved.length ? `Approved: ${approved.join(', ')}.` : 'Nothing was held for approval.');
      return;
    }
    case 'enable':
    case 'disable': {
      if (!values.org || rest.length) throw new UsageError(USAGE);
      const changed = await setEnabled(needSlug(), values.org, command === 'enable');
      console.log(`${slug} is ${command === 'enable' ? 'enabled' : 'disabled'} for ${values.org}${changed ? '' : ' (it already was)'}.`);
      return;
    }
    case 'remove':
      if (rest.length) throw new UsageError(USAGE);
      await removeConnector(needSlug());
      console.log(`Removed connector ${slug}.`);
      return;
    default:
      throw new UsageError(USAGE);
  }
}
