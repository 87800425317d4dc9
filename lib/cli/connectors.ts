// `npm run connectors -- <command>`: manage connectors, the upstream MCP servers behind /mcp
// (docs/connectors.md). Runs against PostgreSQL while servers run; against the embedded database only
// while the server is stopped (its lock says so clearly otherwise). A client secret is never taken as an
// argument, which ps and the shell's history would show: it is read from the named environment variable or
// from standard input.
//
//   add <slug> <url> [--name N] [--description D] [--header "Name: value"]… [--orgs a,b] [--timeout-seconds S]
//   add <slug> <url> --client-credentials --token-url U --client-id I (--client-secret-env VAR | --client-secret-stdin)
//       [--scope S] [--resource R] [--client-auth basic|post] [other options as above but --header]
//   credential <slug> --header "Name: value"…                (new header lines)
//   credential <slug> (--client-secret-env VAR | --client-secret-stdin)    (a new client secret)
//   credential <slug> --client-credentials --token-url U …   (new client credentials, in place of what it had)
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
import { addConnector, type NewCredential, refreshConnector, replaceCredential } from '@/lib/connectors/catalog';
import type { ClientCredentialsInput } from '@/lib/connectors/client-credentials';
import { listConnectors, removeConnector } from '@/lib/connectors/connectors';
import { ConnectorError } from '@/lib/connectors/errors';
import { approveTools } from '@/lib/connectors/review';
import { UpstreamError } from '@/lib/connectors/upstream-errors';
import { closeDatabase, database } from '@/lib/db/client';
import { migrate } from '@/lib/db/migrate';
import { env } from '@/lib/env';
import { runCli, UsageError } from './run';

const USAGE = `Usage: npm run connectors -- <command>
  add <slug> <url> [--name N] [--description D] [--header "Name: value"]... [--orgs org-a,org-b] [--timeout-seconds S]
  add <slug> <url> --client-credentials --token-url U --client-id I (--client-secret-env VAR | --client-secret-stdin)
      [--scope S] [--resource R] [--client-auth basic|post] [--name N] [--description D] [--orgs org-a,org-b] [--timeout-seconds S]
  credential <slug> --header "Name: value"...
  credential <slug> --client-secret-env VAR | --client-secret-stdin
  credential <slug> --client-credentials --token-url U --client-id I (--client-secret-env VAR | --client-secret-stdin) [--scope S] [--resource R] [--client-auth basic|post]
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
      'client-credentials': { type: 'boolean' },
      'token-url': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret-env': { type: 'string' },
      'client-secret-stdin': { type: 'boolean' },
      scope: { type: 'string' },
      resource: { type: 'string' },
      'client-auth': { type: 'string' },
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

type Options = {
  name?: string;
  description?: string;
  header?: string[];
  orgs?: string;
  org?: string;
  all?: boolean;
  'timeout-seconds'?: string;
  'client-credentials'?: boolean;
  'token-url'?: string;
  'client-id'?: string;
  'client-secret-env'?: string;
  'client-secret-stdin'?: boolean;
  scope?: string;
  resource?: string;
  'client-auth'?: string;
};

const CLIENT_CREDENTIAL_OPTIONS = ['token-url', 'client-id', 'scope', 'resource', 'client-auth'] as const;

/** The client secret from the named environment variable or standard input (never an argument); null when neither is given. */
async function clientSecret(values: Options): Promise<string | null> {
  const variable = values['client-secret-env'];
  if (variable !== undefined && values['client-secret-stdin']) throw new UsageError('Give the client secret with --client-secret-env or --client-secret-stdin, not both.');
  if (variable !== undefined) {
    const secret = process.env[variable];
    if (!secret) throw new UsageError(`The environment variable ${variable} is not set or empty: it should hold the client secret.`);
    return secret;
  }
  if (!values['client-secret-stdin']) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The credential the options give: header lines, client credentials, a new client secret alone (`credential` only), or none. */
async function credentialOptions(values: Options, secretAlone: boolean): Promise<NewCredential> {
  const secret = await clientSecret(values);
  if (values['client-credentials']) {
    if (values.header?.length) throw new UsageError("A connector's credential is either header lines (--header) or client credentials (--client-credentials), not both: give one of them.");
    if (!values['token-url'] || !values['client-id'] || secret === null) {
      throw new UsageError('--client-credentials needs --token-url, --client-id and the secret with --client-secret-env VAR or --client-secret-stdin (never as an argument).');
    }
    const clientCredentials: ClientCredentialsInput = {
      tokenUrl: values['token-url'],
      clientId: values['client-id'],
      clientSecret: secret,
      scope: values.scope,
      resource: values.resource,
      clientAuth: values['client-auth'] as ClientCredentialsInput['clientAuth'],
    };
    return { clientCredentials };
  }
  const stray = CLIENT_CREDENTIAL_OPTIONS.filter((option) => values[option] !== undefined);
  if (stray.length) throw new UsageError(`${stray.map((option) => `--${option}`).join(', ')} go with --client-credentials.`);
  if (secret !== null) {
    if (!secretAlone) throw new UsageError('A client secret goes with --client-credentials.');
    if (values.header?.length) throw new UsageError("A connector's credential is either header lines (--header) or client credentials, not both: give one of them.");
    return { clientSecret: secret };
  }
  return { headers: values.header };
}

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
      const credential = await credentialOptions(values, false);
      const added = await addConnector(
        {
          slug,
          url,
          name: values.name,
          description: values.description,
          ...(credential as Exclude<NewCredential, { clientSecret: string }>),
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
        const client = connector.clientCredentials;
        // Never the secret: only where the token comes from and as whom.
        const credential = client
          ? `client credentials: token URL ${client.tokenUrl}, client id ${client.clientId}, ${client.clientAuth}${client.scope ? `, scope "${client.scope}"` : ''}${client.resource ? `, resource ${client.resource}` : ''}`
          : `${connector.credentialHeaders} header(s)`;
        console.log(
          `${connector.slug}  ${connector.name}  ${connector.url}  (${connector.status}; credential: ${credential}; offered to: ${connector.offeredToAll ? 'all' : connector.offeredTo.join(', ') || 'none'}; on for: ${connector.orgs.join(', ') || 'none'})`,
        );
        if (connector.lastRefreshError) console.log(`  last refresh failed: ${connector.lastRefreshError}`);
        for (const tool of connector.tools) console.log(`  ${tool.exposedName}  ${tool.status}${tool.holdReason ? ` (${tool.holdReason})` : ''}`);
        for (const problem of connector.problems) console.log(`  not offered: ${problem.name}: ${problem.problem}`);
      }
      return;
    }
    case 'credential': {
      if (rest.length) throw new UsageError(USAGE);
      const credential = await credentialOptions(values, true);
      if ('headers' in credential && !credential.headers?.length) throw new UsageError(USAGE);
      const replaced = await replaceCredential(needSlug(), credential, FROM_CLI);
      console.log(`Replaced the credential of ${replaced.slug} (${replaced.kind === 'client_credentials' ? 'client credentials' : 'header lines'}): the upstream accepted it.`);
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
