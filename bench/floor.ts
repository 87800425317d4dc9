// Where B's tail latency goes. Two readings taken beside the fixed-rate run, so that a reader can tell
// the framework's share from Gatehouse's own:
// - the harness floor: a plain Node.js HTTP server (no framework, its own process) answering a small JSON
//   body, measured by the same pacer at the same rate — what this machine and this load generator allow;
// - B's time inside Gatehouse's /mcp handler, as the call log records it (`latency_ms`: from the handler's
//   first line to its response), for the calls of B's fixed-rate run (PostgreSQL only: the embedded
//   database lives inside the server process).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { latencyAt, type Latency } from './measure';
import { BASELINE } from './scenarios';

export type Percentiles = Latency['latencyMs'];

const PLAIN_SERVER = `
const server = require('node:http').createServer((request, response) => {
  request.resume();
  response.setHeader('content-type', 'application/json');
  response.end('{"status":"ok"}');
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** The pacer against a plain Node.js server in its own process, at `rate` for `seconds`. */
export async function harnessFloor(rate: number, seconds: number): Promise<Percentiles> {
  const child = spawn(process.execPath, ['-e', PLAIN_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`bench: the plain server exited (${code})`)));
    });
    return (await latencyAt(`http://127.0.0.1:${port}`, BASELINE, seconds, rate)).latencyMs;
  } finally {
    child.kill();
  }
}

/** Percentiles of the call log's handler time for `tool` calls recorded between `from` and `to`. */
export async function handlerLatency(databaseUrl: string, tool: string, from: Date, to: Date): Promise<Percentiles & { calls: number }> {
  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  try {
    const { rows } = await sql.query<{ calls: number; p: number[] | null }>(
      `SELECT count(*)::int AS calls, percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY latency_ms) AS p
         FROM mcp_calls WHERE tool_name = $1 AND at >= $2 AND at <= $3`,
      [tool, from, to],
    );
    // Interpolated between whole milliseconds: a tenth is all the call log's resolution supports.
    const [p50 = 0, p90 = 0, p99 = 0] = (rows[0]?.p ?? []).map((value) => Math.round(value * 10) / 10);
    return { calls: rows[0]?.calls ?? 0, p50, p90, p99 };
  } finally {
    await sql.end();
  }
}
