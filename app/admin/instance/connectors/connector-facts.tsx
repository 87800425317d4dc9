// What the connector pages show of a connector beyond its fields: its credential's kind (never a value),
// whom it is offered to, its held tools, and this instance's circuit (docs/connectors.md, Failure answers).
import Link from 'next/link';
import type { ConnectorSummary } from '@/lib/connectors/connectors';
import type { CircuitState } from '@/lib/connectors/forward';
import { Badge, linkClass } from '../../components';

export function CredentialKind({ connector }: { connector: Pick<ConnectorSummary, 'credentialKind' | 'credentialHeaders' | 'clientCredentials'> }) {
  if (connector.credentialKind === 'client_credentials') return <>Client credentials (client id {connector.clientCredentials?.clientId})</>;
  if (connector.credentialKind === 'headers') return <>{connector.credentialHeaders === 1 ? '1 header' : `${connector.credentialHeaders} headers`}</>;
  return <>None</>;
}

export function OfferedTo({ connector }: { connector: Pick<ConnectorSummary, 'offeredToAll' | 'offeredTo'> }) {
  if (connector.offeredToAll) return <>every organization</>;
  return <>{connector.offeredTo.length ? connector.offeredTo.join(', ') : 'nobody'}</>;
}

export function HeldTools({ slug, held }: { slug: string; held: number }) {
  if (!held) return null;
  return (
    <p className="rounded bg-amber-50 px-3 py-2 text-sm font-medium text-amber-900">
      {held === 1 ? '1 tool held for review' : `${held} tools held for review`}:{' '}
      <Link href={`/admin/instance/connectors/${slug}/tools`} className={linkClass}>
        review them
      </Link>
    </p>
  );
}

export function CircuitBadge({ state }: { state: CircuitState }) {
  if (state.state === 'closed') return <Badge>Circuit closed</Badge>;
  if (state.state === 'failing') return <Badge tone="warn">{state.failures === 1 ? '1 recent failure' : `${state.failures} recent failures`}</Badge>;
  return <Badge tone="bad">Circuit open, retry in {state.retryInSeconds} s</Badge>;
}
