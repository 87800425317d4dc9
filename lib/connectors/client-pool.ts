// The SDK clients Gatehouse keeps to connectors' upstreams (docs/connectors.md, The forwarded call): one per
// connector per process, opened on first use and reused by every call; a changed URL, credential or
// timeout opens a new one. A client whose connection closed or failed to open is dropped (the next call
// opens a new one); one retired (its session gone, its connection failed) is closed once the calls still
// on it have had their time; one unused for IDLE_CLIENT_MS is closed.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { processSingleton } from '@/lib/server/process-singleton';
import type { ConnectorEndpoint } from './served';

/** Pooled clients unused for this long are closed (a removed connector's, an idle one's). */
const IDLE_CLIENT_MS = 10 * 60_000;

type Pooled = { key: string; client: Promise<Client>; usedAt: number };

function pool(): Map<string, Pooled> {
  return processSingleton('connectorClients', () => new Map<string, Pooled>());
}

/** The connector's client, or a new one from `open` when there is none for its current configuration. */
export function pooledClient(connector: ConnectorEndpoint, open: () => Promise<Client>): Promise<Client> {
  const clients = pool();
  closeIdle(clients);
  // Compared as it is on every call: hashing it cost more than the comparison (the sealed credential in it
  // is the one this process holds for the connector anyway).
  const key = JSON.stringify([connector.url, connector.credentialSealed, connector.clientCredentials, connector.timeoutMs]);
  const pooled = clients.get(connector.id);
  if (pooled && pooled.key === key) {
    pooled.usedAt = Date.now();
    return pooled.client;
  }
  if (pooled) void closeClient(pooled);
  const client = open();
  const entry: Pooled = { key, client, usedAt: Date.now() };
  clients.set(connector.id, entry);
  // A client whose transport closed is of no more use: the next call opens a new one.
  void client.then(
    (opened) => {
      opened.onclose = () => {
        if (clients.get(connector.id) === entry) clients.delete(connector.id);
      };
    },
    () => {},
  );
  // A failed open is not kept: the next call tries again.
  client.catch(() => {
    if (clients.get(connector.id) === entry) clients.delete(connector.id);
  });
  return client;
}

/**
 * Takes the connector's client out of the pool, so that the next call opens a new one, and closes it once
 * the calls still in flight on it have had their time (the connector's timeout).
 */
export function retireClient(connector: ConnectorEndpoint): void {
  const pooled = pool().get(connector.id);
  if (!pooled) return;
  pool().delete(connector.id);
  setTimeout(() => void closeClient(pooled), connector.timeoutMs + 1_000).unref();
}

async function closeClient(pooled: Pooled): Promise<void> {
  await pooled.client.then((client) => client.close()).catch(() => {});
}

function closeIdle(clients: Map<string, Pooled>): void {
  const now = Date.now();
  for (const [id, pooled] of clients) {
    if (now - pooled.usedAt > IDLE_CLIENT_MS) {
      clients.delete(id);
      void closeClient(pooled);
    }
  }
}

/** Closes every pooled client (shutdown, tests). */
export async function closeConnectorClients(): Promise<void> {
  const clients = [...pool().values()];
  pool().clear();
  await Promise.all(clients.map(closeClient));
}
