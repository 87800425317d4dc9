// The README's generated sections. What a variable means lives in lib/env.ts (CONFIGURATION) and how
// to connect each client in lib/connect/clients.ts; the README shows them between markers, rewritten
// by `npm run docs:readme` and compared by tests/unit/readme.test.ts, so the two never drift apart.
import { connectClients } from '@/lib/connect/clients';
import { CONFIGURATION } from '@/lib/env';

/** The example installation the README's instructions name. */
export const EXAMPLE_MCP_URL = 'https://auth.example.com/mcp';

const READ_BY = { server: '', tools: ' *(tools)*', tests: ' *(tests)*' } as const;

/** The configuration table, one row per variable, in CONFIGURATION's order. */
export function configurationSection(): string {
  const rows = CONFIGURATION.map((entry) => `| \`${entry.name}\`${READ_BY[entry.readBy]} | ${entry.default} | ${entry.description} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** One bullet per client: where the line goes, the line, and what follows. */
export function connectSection(): string {
  return connectClients(EXAMPLE_MCP_URL)
    .map((client) => {
      const cloud = client.connectsFrom === 'cloud' ? ' *Connects from the cloud: needs a public `https://` `PUBLIC_URL`.*' : '';
      return `- **${client.name}** — ${client.where}:\n  \`${client.line}\` — ${client.notes}${cloud}`;
    })
    .join('\n');
}

const SECTIONS: Record<string, () => string> = {
  connect: connectSection,
  configuration: configurationSection,
};

/** `readme` with every marked section (`<!-- name:start -->` … `<!-- name:end -->`) regenerated. */
export function renderReadme(readme: string): string {
  let text = readme;
  for (const [name, render] of Object.entries(SECTIONS)) {
    const start = `<!-- ${name}:start -->`;
    const end = `<!-- ${name}:end -->`;
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from < 0 || to < from) throw new Error(`README.md has no ${start} … ${end} section`);
    text = `${text.slice(0, from + start.length)}\n${render()}\n${text.slice(to)}`;
  }
  return text;
}
