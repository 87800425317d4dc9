// In-band refusals of tool calls (lib/mcp/refusals.ts, docs/protocol.md §6): HTTP 200 with isError, worded for the
// model to relay — each says what went wrong and whether reconnecting helps.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf } from '@/lib/auth/permissions';
import type { Caller } from '@/lib/mcp/caller';
import { invalidArguments, missingScope, restricted, roleCannot, toolFailed, unknownTool } from '@/lib/mcp/refusals';

beforeAll(() => {
  process.env.PUBLIC_URL = 'https://gatehouse.example';
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'gatehouse-refusals-'));
});

const caller = (overrides: Partial<Caller> = {}): Caller => ({
  personId: 'p1',
  personName: 'Ada',
  personEmail: 'ada@acme.test',
  orgId: 'o1',
  orgName: 'Acme',
  role: 'viewer',
  permissions: permissionsOf('viewer'),
  clientId: 'c1',
  clientName: null,
  grantId: 'g1',
  scopes: ['mcp:write'],
  restrictedTools: new Set(),
  tokenExpiresAt: new Date(),
  grantLastUsedAt: null,
  ...overrides,
});

describe('in-band refusals', () => {
  it('missingScope names the consent checkbox, what is held, that approval is final, and carries the challenge', () => {
    expect(missingScope(caller(), 'list_members', 'mcp:read')).toEqual({
      kind: 'refused_scope',
      text:
        'The tool "list_members" needs the "Read your organization\'s data" permission (mcp:read), which was not ticked when this app was connected. ' +
        'This connection holds: mcp:write. A connection\'s permissions never change after approval: to fix this, disconnect and reconnect the app, and tick "Read your organization\'s data" on the consent screen.',
      headers: {
        'WWW-Authenticate': 'Bearer resource_metadata="https://gatehouse.example/.well-known/oauth-protected-resource", scope="mcp:read", error="insufficient_scope"',
      },
    });
  });

  it('missingScope lists several held scopes, or none', () => {
    expect(missingScope(caller({ scopes: [] }), 't', 'mcp:write').text).toContain('This connection holds: none.');
    expect(missingScope(caller({ scopes: ['mcp:read', 'mcp:write'] }), 't', 'mcp:write').text).toContain('This connection holds: mcp:read, mcp:write.');
  });

  it('roleCannot names person, org and role, and says reconnecting will not help', () => {
    expect(roleCannot(caller(), 'read_audit_log', '"audit:read"')).toEqual({
      kind: 'refused_role',
      text:
        'The tool "read_audit_log" cannot run: Ada\'s role in Acme is "viewer", which does not allow "audit:read". ' +
        'This is a role problem, not a connection problem: reconnecting the app will not help. An admin of Acme can change the role.',
    });
  });

  it('restricted says an admin of the org turned it off and reconnecting will not change that', () => {
    expect(restricted(caller(), 'whoami')).toEqual({
      kind: 'restricted',
      text: 'The tool "whoami" is turned off for Acme by an admin of the organization. Reconnecting will not change that; ask an admin of Acme if you need it.',
    });
  });

  it('invalidArguments, unknownTool and toolFailed', () => {
    expect(invalidArguments('t', 'limit: too big')).toEqual({ kind: 'invalid_arguments', text: 'The arguments for "t" are invalid: limit: too big' });
    expect(unknownTool('__proto__')).toEqual({ kind: 'unknown_tool', text: 'There is no tool named "__proto__". Call tools/list to see the available tools.' });
    expect(toolFailed('t')).toEqual({ kind: 'tool_error', text: 'The tool "t" failed unexpectedly. Try again later.' });
  });

  it('carries a challenge only for the missing scope: the other refusals are not fixed by a new token', () => {
    expect(roleCannot(caller(), 't', 'x').headers).toBeUndefined();
    expect(restricted(caller(), 't').headers).toBeUndefined();
    expect(invalidArguments('t', 'x').headers).toBeUndefined();
    expect(unknownTool('t').headers).toBeUndefined();
    expect(toolFailed('t').headers).toBeUndefined();
  });
});
