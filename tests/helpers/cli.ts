// Runs one of Gatehouse's command-line tools as a user would (`npm run …` runs the same tsx command).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/cli/standalone';

export type CliResult = { code: number | null; stdout: string; stderr: string };

export function runCli(script: string, args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return runNode(join(PROJECT_ROOT, 'node_modules/tsx/dist/cli.mjs'), [script, ...args], env, PROJECT_ROOT, input);
}

/** Runs a JavaScript file with this Node, in `cwd`, with only the given environment (plus PATH and HOME). */
export function runNode(file: string, args: string[], env: Record<string, string>, cwd: string, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'production', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
