// The gates a tool call passes, in order (lib/mcp/gates.ts, docs/protocol.md §6): an admin's restriction, the
// connection's scope, the role's tool:execute and the tool's own permission, then storable text and the
// tool's input schema. Prompts and resources built from a tool's data meet the first three.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { permissionsOf } from '@/lib/auth/permissions';
import type { Role } from '@/lib/generated/prisma/enums';
import { testCaller } from '../helpers/caller';
import { listsToolData, passGates, refuseToolData, toolAccess, toolAvailability, toolsAvailableTo } from '@/lib/mcp/gates';
import type { ToolDefinition } from '@/lib/mcp/tools/definition';
import type { McpScope } from '@/lib/oauth/scopes';

beforeAll(() => {
  process.env.PUBLIC_URL = 'https://gatehouse.example';
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'gatehouse-gates-'));
});

const caller = testCaller;

function tool(overrides: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name: 'read_things',
    title: 'Read things',
    description: 'Reads things',
    input: z.object({ limit: z.number().int().min(1).max(10).optional(), filter: z.object({ name: z.string() }).optional() }).strict(),
    annotations: { readOnlyHint: true },
    scope: 'mcp:read',
    permission: null,
    run: async () => ({ text: 'ok' }),
    ...overrides,
  };
}

const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

describe('toolAccess', () => {
  it('lets a member with the scope use a tool that asks only tool:execute', () => {
    expect(toolAccess(caller(), tool())).toBeNull();
  });

  it('refuses a tool an admin switched off, whatever the scope and role', () => {
    for (const role of ROLES) {
      const refusal = toolAccess(caller({ role, scopes: [], restricted: ['read_things'] }), tool({ permission: 'audit:read' }));
      expect(refusal?.kind, role).toBe('restricted');
      expect(refusal?.text).toBe('The tool "read_things" is turned off for Acme by an admin of the organization. Reconnecting will not change that; ask an admin of Acme if you need it.');
      expect(refusal?.headers).toBeUndefined();
    }
  });

  it('restricts by exact name only', () => {
    expect(toolAccess(caller({ restricted: ['read_thing', 'READ_THINGS', 'read_things '] }), tool())).toBeNull();
  });

  it('refuses a missing scope next, with the insufficient_scope challenge for that scope', () => {
    const refusal = toolAccess(caller({ role: 'viewer', scopes: ['mcp:read'] }), tool({ scope: 'mcp:write' }));
    expect(refusal?.kind).toBe('refused_scope');
    expect(refusal?.headers).toEqual({
      'WWW-Authenticate': 'Bearer resource_metadata="https://gatehouse.example/.well-known/oauth-protected-resource", scope="mcp:write", error="insufficient_scope"',
    });
    expect(refusal?.text).toMatch(/needs the "Make changes on your behalf" permission \(mcp:write\).*holds: mcp:read.*disconnect and reconnect/s);
  });

  it('says "none" when the connection holds no scope', () => {
    expect(toolAccess(caller({ scopes: [] }), tool())?.text).toMatch(/This connection holds: none\./);
  });

  it('asks no scope of a tool that defers to its target (execute_tool)', () => {
    expect(toolAccess(caller({ scopes: [] }), tool({ name: 'execute_tool', scope: null }))).toBeNull();
  });

  it('refuses a role without tool:execute after the scope, naming person, org and role', () => {
    const refusal = toolAccess(caller({ role: 'viewer' }), tool());
    expect(refusal?.kind).toBe('refused_role');
    expect(refusal?.text).toBe(
      'The tool "read_things" cannot run: Ada\'s role in Acme is "viewer", which does not allow running tools. This is a role problem, not a connection problem: reconnecting the app will not help. An admin of Acme can change the role.',
    );
    expect(refusal?.headers).toBeUndefined();
  });

  it.each(ROLES.flatMap((role) => (['audit:read', 'members:manage', 'plan:manage', 'clients:register'] as const).map((permission) => [role, permission] as const)))(
    '%s and a tool that needs %s',
    (role, permission) => {
      const refusal = toolAccess(caller({ role }), tool({ permission }));
      const allowed = permissionsOf(role).includes('tool:execute') && permissionsOf(role).includes(permission);
      if (allowed) expect(refusal).toBeNull();
      else {
        expect(refusal?.kind).toBe('refused_role');
        // A viewer is refused for running tools at all; the others for the tool's own permission.
        expect(refusal?.text).toContain(role === 'viewer' ? 'does not allow running tools' : `does not allow "${permission}"`);
      }
    },
  );

  it('checks in order: restriction, scope, role', () => {
    const viewerWithoutScope = caller({ role: 'viewer', scopes: [] });
    expect(toolAccess({ ...viewerWithoutScope, restrictedTools: new Set(['read_things']) }, tool())?.kind).toBe('restricted');
    expect(toolAccess(viewerWithoutScope, tool())?.kind).toBe('refused_scope');
    expect(toolAccess(caller({ role: 'viewer' }), tool())?.kind).toBe('refused_role');
  });

  it('reads permissions from the caller, not from its role name', () => {
    expect(toolAccess({ ...caller({ role: 'owner' }), permissions: [] }, tool())?.kind).toBe('refused_role');
    expect(toolAccess({ ...caller({ role: 'viewer' }), permissions: ['tool:execute'] }, tool())).toBeNull();
  });
});

describe('refuseToolData (prompts and resources that show a tool’s data)', () => {
  it('is null when the caller may have the data', () => {
    expect(refuseToolData(caller(), tool(), 'The prompt "p"')).toBeNull();
  });

  it.each([
    ['a restriction', caller({ restricted: ['read_things'] }), /turned off for Acme/, undefined],
    ['a role', caller({ role: 'viewer' }), /role problem/, undefined],
  ])('refuses for %s with 403 and -32003, naming the tool it shows', (_what, who, text, headers) => {
    const refusal = refuseToolData(who, tool(), 'The prompt "summarize"');
    expect([refusal?.code, refusal?.httpStatus]).toEqual([-32003, 403]);
    expect(refusal?.message).toMatch(/^The prompt "summarize" shows what the tool "read_things" reads\. /);
    expect(refusal?.message).toMatch(text);
    expect(refusal?.options.headers).toEqual(headers);
  });

  it('refuses a missing scope with 403 and the step-up challenge', () => {
    const refusal = refuseToolData(caller({ scopes: ['mcp:write'] }), tool(), 'The resource "r"');
    expect([refusal?.code, refusal?.httpStatus]).toEqual([-32003, 403]);
    expect(refusal?.options.headers?.['WWW-Authenticate']).toContain('error="insufficient_scope"');
    expect(refusal?.options.headers?.['WWW-Authenticate']).toContain('scope="mcp:read"');
  });
});

describe('listsToolData (resources/list and prompts/list)', () => {
  it('lists what the caller may have, and what only a missing scope keeps back (the step-up answers it)', () => {
    expect(listsToolData(caller(), tool())).toBe(true);
    expect(listsToolData(caller({ scopes: [] }), tool())).toBe(true);
  });

  it('hides what an admin switched off or the role may not use', () => {
    expect(listsToolData(caller({ restricted: ['read_things'] }), tool())).toBe(false);
    expect(listsToolData(caller({ role: 'viewer' }), tool())).toBe(false);
    expect(listsToolData(caller({ role: 'member' }), tool({ permission: 'audit:read' }))).toBe(false);
  });
});

describe('listsToolData when the scope is not all that is missing', () => {
  // A connection without the scope whose role may not use the tool either: the step-up challenge would
  // send the person to reconnect for a scope, only to meet the role refusal that says reconnecting will
  // not help. Listed only when the scope is all that is missing.
  it('hides what the role may not use even when the scope is missing too', () => {
    expect(listsToolData(caller({ role: 'viewer', scopes: [] }), tool())).toBe(false);
    expect(listsToolData(caller({ role: 'member', scopes: ['mcp:write'] }), tool({ permission: 'audit:read' }))).toBe(false);
    expect(listsToolData(caller({ role: 'owner', scopes: ['mcp:write'] }), tool({ permission: 'audit:read' }))).toBe(true);
  });
});

describe('passGates', () => {
  it('returns the parsed input when every gate passes', async () => {
    expect(await passGates(caller(), tool(), { limit: 3 })).toEqual({ ok: true, input: { limit: 3 } });
  });

  it('takes missing arguments (undefined or null) as {}', async () => {
    expect(await passGates(caller(), tool(), undefined)).toEqual({ ok: true, input: {} });
    expect(await passGates(caller(), tool(), null)).toEqual({ ok: true, input: {} });
  });

  it('refuses access before looking at the arguments', async () => {
    const outcome = await passGates(caller({ role: 'viewer' }), tool(), { limit: 'not a number', bad: '\u0000' });
    expect(outcome).toMatchObject({ ok: false, refusal: { kind: 'refused_role' } });
  });

  it.each([
    ['a NUL in a value', { filter: { name: 'a\u0000b' } }],
    ['a NUL in a key', { 'a\u0000': 1 }],
    ['an unpaired surrogate', { filter: { name: '\ud800' } }],
    ['a NUL deep in an array', { filter: { name: 'x' }, list: [[['\u0000']]] }],
  ])('refuses %s as invalid arguments, before the schema', async (_what, args) => {
    const outcome = await passGates(caller(), tool(), args);
    expect(outcome).toEqual({
      ok: false,
      refusal: { kind: 'invalid_arguments', text: 'The arguments for "read_things" are invalid: they hold characters that cannot be stored (NUL or broken Unicode)' },
    });
  });

  it('accepts a correctly paired surrogate (an emoji)', async () => {
    expect(await passGates(caller(), tool(), { filter: { name: '😀' } })).toEqual({ ok: true, input: { filter: { name: '😀' } } });
  });

  it('refuses what the schema refuses, naming each path', async () => {
    const outcome = await passGates(caller(), tool(), { limit: 0, filter: { name: 5 } });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.refusal.kind).toBe('invalid_arguments');
    expect(outcome.refusal.text).toMatch(/^The arguments for "read_things" are invalid: /);
    expect(outcome.refusal.text).toContain('limit: ');
    expect(outcome.refusal.text).toContain('filter.name: ');
    expect(outcome.refusal.text).toContain('; ');
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'limit=3'],
    ['a number', 3],
  ])('refuses arguments that are %s, naming "arguments" as the path', async (_what, args) => {
    const outcome = await passGates(caller(), tool(), args);
    expect(outcome).toMatchObject({ ok: false, refusal: { kind: 'invalid_arguments' } });
    if (!outcome.ok) expect(outcome.refusal.text).toMatch(/invalid: arguments: /);
  });

  it('refuses prototype keys a strict schema does not know, and pollutes nothing', async () => {
    const args = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}');
    const outcome = await passGates(caller(), tool(), args);
    expect(outcome).toMatchObject({ ok: false, refusal: { kind: 'invalid_arguments' } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('survives arguments that refer to themselves', async () => {
    const args: Record<string, unknown> = { limit: 1 };
    args.self = args;
    const outcome = await passGates(caller(), tool({ input: z.object({ limit: z.number() }) }), args);
    expect(outcome).toEqual({ ok: true, input: { limit: 1 } });
  });
});

// The one reading of the gates that the consent screen shows and tools/list filters with.
describe('toolsAvailableTo', () => {
  const names = (role: Role, scopes: McpScope[], restricted: string[] = []) => toolsAvailableTo({ role, scopes, restrictedTools: new Set(restricted) }).map((tool) => tool.name);

  it('follows the scopes, in tools/list order', () => {
    expect(names('member', ['mcp:read', 'mcp:write'])).toEqual(['whoami', 'list_connected_apps', 'revoke_connected_app', 'list_members', 'execute_tool']);
    expect(names('member', ['mcp:read'])).toEqual(['whoami', 'list_connected_apps', 'list_members', 'execute_tool']);
    expect(names('member', ['mcp:write'])).toEqual(['revoke_connected_app', 'execute_tool']);
  });

  it('follows the role: a tool permission beyond tool:execute, and none at all for a viewer', () => {
    expect(names('admin', ['mcp:read'])).toContain('read_audit_log');
    expect(names('member', ['mcp:read'])).not.toContain('read_audit_log');
    expect(names('viewer', ['mcp:read', 'mcp:write'])).toEqual([]);
  });

  it("follows the org's restrictions; execute_tool only while some other tool is open", () => {
    expect(names('member', ['mcp:read'], ['whoami'])).toEqual(['list_connected_apps', 'list_members', 'execute_tool']);
    expect(names('member', [])).toEqual([]);
    expect(names('member', ['mcp:write'], ['revoke_connected_app'])).toEqual([]);
  });

  it("adds the tools of the org's connectors after the built-in ones, under the same gates", () => {
    const connector = [
      { name: 'notes__search', title: 'Search notes', scope: 'mcp:read' as const, permission: null },
      { name: 'notes__delete', title: 'Delete a note', scope: 'mcp:write' as const, permission: null },
    ];
    const withConnector = (role: Role, scopes: McpScope[], restricted: string[] = []) => toolsAvailableTo({ role, scopes, restrictedTools: new Set(restricted) }, connector).map((tool) => tool.name);
    expect(withConnector('member', ['mcp:read']).slice(-2)).toEqual(['execute_tool', 'notes__search']);
    expect(withConnector('member', ['mcp:write'])).toEqual(['revoke_connected_app', 'execute_tool', 'notes__delete']);
    expect(withConnector('member', ['mcp:read', 'mcp:write'], ['notes__delete'])).not.toContain('notes__delete');
    expect(withConnector('viewer', ['mcp:read', 'mcp:write'])).toEqual([]);
    // execute_tool is open when only a connector's tool is: it can reach it.
    expect(withConnector('member', ['mcp:write'], ['revoke_connected_app'])).toEqual(['execute_tool', 'notes__delete']);
  });

  it('agrees with toolAccess for every tool with a scope of its own', () => {
    for (const role of ['owner', 'admin', 'member', 'viewer'] as Role[]) {
      for (const scopes of [[], ['mcp:read'], ['mcp:write'], ['mcp:read', 'mcp:write']] as McpScope[][]) {
        const open = new Set(names(role, scopes, ['list_members']));
        for (const { tool } of toolAvailability(caller({ role, scopes, restricted: ['list_members'] }))) {
          if (tool.scope === null) continue;
          expect(open.has(tool.name), `${role} ${scopes.join(' ')} ${tool.name}`).toBe(toolAccess(caller({ role, scopes, restricted: ['list_members'] }), tool) === null);
        }
      }
    }
  });
});
