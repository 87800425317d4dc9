// The README's generated sections match what lib/docs/readme.ts makes of lib/env.ts and
// lib/connect/clients.ts (run `npm run docs:readme` after changing either), every variable the code
// reads is described there, and the documentation stays inside the repository and true to the
// section numbers the code cites.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION, VALIDATED_VARIABLES } from '@/lib/env';
import { connectClients, mcpUrl } from '@/lib/connect/clients';
import { renderReadme } from '@/lib/docs/readme';

const ROOT = resolve(__dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((entry) => {
    const path = join(folder, entry);
    if (entry === 'generated' || entry === 'node_modules') return [];
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mjs|js)$/.test(entry) ? [path] : [];
  });
}

const SOURCES = [...sourceFiles('lib'), ...sourceFiles('app')];

describe('README.md', () => {
  it('has the generated sections exactly as `npm run docs:readme` writes them', () => {
    expect(README).toBe(renderReadme(README));
  });

  it('stays a front door: at most 15,360 bytes', () => {
    expect(Buffer.byteLength(README)).toBeLessThanOrEqual(15_360);
  });

  it('describes every environment variable the code reads', () => {
    const described = new Set(CONFIGURATION.map((entry) => entry.name));
    const read = new Set<string>();
    for (const file of SOURCES) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const match of text.matchAll(/process\.env(?:\.([A-Z_][A-Z0-9_]*)|\[['"]([A-Z_][A-Z0-9_]*)['"]\])/g)) {
        read.add(match[1] ?? match[2]!);
      }
    }
    expect(read.size).toBeGreaterThan(0);
    expect([...read].filter((name) => !described.has(name))).toEqual([]);
    expect(VALIDATED_VARIABLES.filter((name) => !described.has(name))).toEqual([]);
    expect(CONFIGURATION.filter((entry) => entry.readBy === 'server' && !VALIDATED_VARIABLES.includes(entry.name) && !read.has(entry.name))).toEqual([]);
  });
});

describe('the connect-a-client instructions', () => {
  it('name each client the README promises, each with the /mcp URL in its one line', () => {
    const url = mcpUrl('https://auth.example.com/');
    expect(url).toBe('https://auth.example.com/mcp');
    const clients = connectClients(url);
    expect(clients.map((client) => client.id)).toEqual(['claude', 'chatgpt', 'claude-code', 'cursor', 'vscode']);
    for (const client of clients) {
      expect(client.line).toContain(url);
      if (client.lineKind === 'json') expect(() => JSON.parse(client.line)).not.toThrow();
    }
    // Clients that connect from their vendor's cloud cannot reach localhost: the README must say so.
    expect(clients.filter((client) => client.connectsFrom === 'cloud').map((client) => client.id)).toEqual(['claude', 'chatgpt']);
    expect(README).toMatch(/public `https:\/\/` `PUBLIC_URL`/);
  });
});

const DOCUMENTS = [
  'README.md',
  'CHANGELOG.md',
  'SECURITY.md',
  'tests/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('the documentation', () => {
  it.each(DOCUMENTS)('%s links only to files inside the repository that exist', (document) => {
    const text = readFileSync(join(ROOT, document), 'utf8');
    const broken: string[] = [];
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!.split('#')[0]!;
      if (!target || /^[a-z]+:/.test(target)) continue;
      const path = resolve(ROOT, dirname(document), target);
      if (relative(ROOT, path).startsWith('..') || !existsSync(path)) broken.push(match[1]!);
    }
    expect(broken).toEqual([]);
    expect(text).not.toMatch(/SPEC\.md|\.\.\/shared/);
  });

  it('has a docs/protocol.md heading for every protocol section the code cites', () => {
    const protocol = readFileSync(join(ROOT, 'docs/protocol.md'), 'utf8');
    const headings = new Set([...protocol.matchAll(/^#{2,4} (\d+(?:\.\d+)*)\. /gm)].map((match) => match[1]!));
    const cited = new Set<string>();
    for (const file of [...SOURCES, ...sourceFiles('tests')]) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      // "docs/protocol.md §6", "docs/protocol.md §3–§5", "docs/protocol.md §1, §5": every section named.
      expect(text, `${file} cites a contract outside the repository`).not.toMatch(/\bSPEC\s§/);
      for (const citation of text.matchAll(/docs\/protocol\.md §\d+(?:\.\d+)*(?:(?:[–-]|, )§\d+(?:\.\d+)*)*/g)) {
        for (const section of citation[0].matchAll(/§(\d+(?:\.\d+)*)/g)) cited.add(section[1]!);
      }
    }
    expect(cited.size).toBeGreaterThan(0);
    expect([...cited].filter((section) => !headings.has(section))).toEqual([]);
  });
});
