// "Connect an app": the installation's /mcp URL and, per MCP client, where it goes — the same
// instructions as the README's "Connect a client" section, from the same source (lib/connect/clients.ts).
// The URL comes from PUBLIC_URL only, never from the request (its Host header or query), so a crafted
// link cannot make the page tell a person to connect their client somewhere else.
import type { ReactNode } from 'react';
import { type ConnectClient, connectClients, mcpUrl, reachNote } from '@/lib/connect/clients';
import { env } from '@/lib/env';
import { ConnectTabs } from './connect-tabs';
import { CopyButton } from './copy-button';

const LINE_LABEL: Record<ConnectClient['lineKind'], string> = { url: 'Paste this URL', json: 'Add this entry', command: 'Run' };

export function ConnectCard() {
  const { publicUrl } = env();
  const url = mcpUrl(publicUrl);
  const note = reachNote(publicUrl);
  const panels = connectClients(url).map((client) => ({
    id: client.id,
    tab: client.tab,
    heading: client.name,
    body: <ClientInstructions client={client} unreachable={note !== null && client.connectsFrom === 'cloud'} />,
  }));
  return (
    <section aria-labelledby="connect-an-app" data-testid="connect-card" className="space-y-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <div className="space-y-1">
        <h2 id="connect-an-app" className="text-lg font-semibold">
          Connect an app
        </h2>
        <p className="text-sm text-slate-600">An MCP client needs one thing: this address. It finds the rest itself, then sends you here to sign in and choose what it may do.</p>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <code id="connect-mcp-url" data-testid="mcp-url" className="rounded bg-slate-100 px-2 py-1 font-mono text-sm break-all">
          {url}
        </code>
        <CopyButton text={url} targetId="connect-mcp-url" label="the MCP URL" />
      </div>
      {note ? (
        <p role="note" data-testid="not-public-note" className="rounded border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {note}
        </p>
      ) : null}
      <ConnectTabs label="MCP clients" panels={panels} />
    </section>
  );
}

function ClientInstructions({ client, unreachable }: { client: ConnectClient; unreachable: boolean }) {
  const lineId = `connect-line-${client.id}`;
  return (
    <>
      <p className="text-sm">
        <span className="font-medium">Where:</span> <WithCode text={client.where} />
      </p>
      <div className="space-y-1">
        <p className="text-sm font-medium">{LINE_LABEL[client.lineKind]}:</p>
        <div className="flex flex-wrap items-start gap-2">
          <pre id={lineId} data-testid="connect-line" className="min-w-0 flex-1 rounded bg-slate-100 px-2 py-1 font-mono text-sm break-all whitespace-pre-wrap">
            {client.line}
          </pre>
          <CopyButton text={client.line} targetId={lineId} label={`the ${client.tab} ${client.lineKind === 'url' ? 'URL' : client.lineKind === 'json' ? 'entry' : 'command'}`} />
        </div>
      </div>
      <p className="text-sm text-slate-600">
        <WithCode text={client.notes} />
      </p>
      {unreachable ? <p className="text-sm font-medium text-amber-900">{client.tab} cannot reach this installation until PUBLIC_URL is a public https:// address.</p> : null}
    </>
  );
}

/** The instructions' `code` spans (written for the README's Markdown) as <code>. */
function WithCode({ text }: { text: string }): ReactNode {
  const open = text.indexOf('`');
  const close = open < 0 ? -1 : text.indexOf('`', open + 1);
  if (close < 0) return text;
  return (
    <>
      {text.slice(0, open)}
      <code>{text.slice(open + 1, close)}</code>
      <WithCode text={text.slice(close + 1)} />
    </>
  );
}
