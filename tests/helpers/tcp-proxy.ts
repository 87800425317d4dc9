// A TCP proxy a test can cut and restore: the server talks to PostgreSQL through it, so the test can take
// "the database" away from one server — every open connection reset, new ones refused — without
// stopping the PostgreSQL every other test is using.
import { createServer, Socket, type Server } from 'node:net';

export type TcpProxy = {
  port: number;
  /** Resets every open connection and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
};

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let down = false;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = new Socket();
    open.add(client).add(upstream);
    const forget = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget).on('close', forget);
    upstream.connect(target.port, target.host, () => {
      client.pipe(upstream);
      upstream.pipe(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    cut() {
      down = true;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        down = true;
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
