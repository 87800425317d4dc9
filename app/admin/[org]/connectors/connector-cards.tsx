'use client';

import Link from 'next/link';
import { useState } from 'react';
import { ConfirmDialog } from '@/app/components/confirm-dialog';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { OfferedConnector } from '@/lib/connectors/org-view';
import { Badge, linkClass } from '../../components';
import { Switch } from '../../switch';
import { setConnectorEnabledAction } from './actions';

type Org = { slug: string; name: string };

const toolCount = (count: number) => `${count} tool${count === 1 ? '' : 's'}`;

/** The connectors offered to the org, each with its switch and its tools. Switching one off asks first. */
export function ConnectorCards({ org, connectors: initial }: { org: Org; connectors: OfferedConnector[] }) {
  const [connectors, setConnectors] = useState(initial);
  const [confirming, setConfirming] = useState<OfferedConnector | null>(null);
  const { pending, run } = useConsoleAction();

  function change(connector: OfferedConnector, enabled: boolean) {
    run(() => setConnectorEnabledAction(org.slug, { slug: connector.slug, enabled }), {
      settled: () => setConfirming(null),
      done: () => {
        setConnectors((current) => current.map((item) => (item.slug === connector.slug ? { ...item, on: enabled } : item)));
        return enabled ? `${connector.name} is on for ${org.name}: its tools are on /mcp from the next request.` : `${connector.name} is off for ${org.name}: its tools are gone from /mcp.`;
      },
      // The page's own state is all that changed.
      next: 'stay',
    });
  }

  return (
    <>
      <ul className="space-y-4" aria-label="Connectors offered">
        {connectors.map((connector) => (
          <li key={connector.slug}>
            <ConnectorCard org={org} connector={connector} pending={pending} onToggle={() => (connector.on ? setConfirming(connector) : change(connector, true))} />
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={confirming !== null}
        title={confirming ? `Switch off ${confirming.name}?` : ''}
        confirmLabel="Switch off"
        pendingLabel="Switching off…"
        pending={pending}
        onConfirm={() => confirming && change(confirming, false)}
        onCancel={() => setConfirming(null)}
      >
        {confirming ? (
          <>
            <p>
              Its {toolCount(confirming.tools.length)} disappear from /mcp at once for everyone in {org.name}: apps no longer list them, and calls to them are refused.
            </p>
            <p>Connections and the switches on the Tools tab are kept; you can switch it on again while it is offered to {org.name}.</p>
          </>
        ) : null}
      </ConfirmDialog>
    </>
  );
}

function ConnectorCard({ org, connector, pending, onToggle }: { org: Org; connector: OfferedConnector; pending: boolean; onToggle: () => void }) {
  const headingId = `connector-${connector.slug}`;
  return (
    <article aria-labelledby={headingId} className="space-y-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <div className="flex items-start justify-between gap-4">
        <div className="min-w-0 space-y-1">
          <h2 id={headingId} className="text-lg font-semibold break-words">
            {connector.name} <code className="ml-1 text-sm font-normal break-all text-slate-500">{connector.slug}</code>
          </h2>
          <p className="flex flex-wrap gap-2">
            {connector.on ? <Badge tone="good">On for {org.name}</Badge> : <Badge>Off</Badge>}
            {connector.active ? null : <Badge tone="warn">Paused by an instance admin</Badge>}
            <Badge>{toolCount(connector.tools.length)}</Badge>
          </p>
        </div>
        <Switch on={connector.on} label={`${connector.name} on for ${org.name}`} disabled={pending} onToggle={onToggle} />
      </div>
      {connector.description ? <p className="text-sm break-words whitespace-pre-line text-slate-700">{connector.description}</p> : null}
      {connector.active ? null : <p className="text-sm text-slate-600">An instance admin paused this connector for the whole installation: none of its tools is served until it is resumed.</p>}
      {connector.tools.length ? (
        <ul className="divide-y divide-slate-200 rounded border border-slate-200" aria-label={`Tools of ${connector.name}`}>
          {connector.tools.map((tool) => (
            <li key={tool.exposedName} className="space-y-1 px-3 py-2">
              <p className="text-sm font-medium break-words">
                {tool.title} <code className="ml-1 text-xs font-normal break-all text-slate-500">{tool.exposedName}</code> <Badge>{tool.scope}</Badge>{' '}
                {tool.status === 'held' ? <Badge tone="warn">Held for review</Badge> : null} {tool.restricted ? <Badge tone="bad">Off on the Tools tab</Badge> : null}
              </p>
              {tool.description ? <p className="line-clamp-3 text-sm break-words text-slate-600">{tool.description}</p> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-600">It offers no tools at the moment.</p>
      )}
      {connector.on ? (
        <p className="text-sm">
          <Link href={`/admin/${org.slug}/tools#connector-${connector.slug}`} className={linkClass}>
            Switch its tools one by one on the Tools tab
          </Link>
        </p>
      ) : (
        <p className="text-sm text-slate-600">Once it is on, each of its tools can be switched off on the Tools tab.</p>
      )}
    </article>
  );
}
