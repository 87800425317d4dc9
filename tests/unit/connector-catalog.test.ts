// Connector catalogs (docs/connectors.md): what an upstream's tools/list entry becomes, the canonical hash
// that pins it (key order is not a change, any wording is), the exposed-name rule, the header credential
// rules, and what a refresh may change by itself.
import { describe, expect, it } from 'vitest';
import { parseCredentialHeaders } from '@/lib/connectors/credentials';
import { canonicalJson, connectorSlugProblem, definitionHash, exposedToolName, isProblem, readToolDefinition, requiredScope, type ToolDefinition } from '@/lib/connectors/definitions';
import { planCatalog, planMove } from '@/lib/connectors/pinning';

const schema = { type: 'object', properties: { q: { type: 'string' } } };
const definition = (name: string, description = 'd', extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  title: null,
  description,
  inputSchema: schema,
  outputSchema: null,
  annotations: null,
  ...extra,
});

describe('tool definitions from an upstream', () => {
  it('keeps only the fields passed on, and names what is wrong with a bad entry', () => {
    expect(readToolDefinition({ name: 'search', description: 'Find.', inputSchema: schema, extra: 'dropped', _meta: { x: 1 } })).toEqual(definition('search', 'Find.'));
    const problems = [
      [null, 'it has no name'],
      [{ name: 7, inputSchema: schema }, 'it has no name'],
      [{ name: 'x'.repeat(129), inputSchema: schema }, 'longer than 128'],
      [{ name: 'a', inputSchema: { type: 'string' } }, 'not an object schema'],
      [{ name: 'a', inputSchema: schema, description: 9 }, 'description is not text'],
      [{ name: 'a', inputSchema: schema, description: 'x'.repeat(9000) }, 'description is longer'],
      [{ name: 'a', inputSchema: schema, annotations: [] }, 'annotations are not an object'],
      [{ name: 'a', inputSchema: schema, description: 'nul\u0000' }, 'cannot be stored'],
      [{ name: 'a', inputSchema: { type: 'object', properties: { big: { description: 'x'.repeat(70_000) } } } }, 'larger than'],
    ] as const;
    for (const [entry, problem] of problems) {
      const read = readToolDefinition(entry);
      expect(isProblem(read), JSON.stringify(entry)?.slice(0, 60)).toBe(true);
      expect(isProblem(read) && read.problem).toContain(problem);
    }
    // An own property only: a prototype's name is no name.
    expect(isProblem(readToolDefinition(Object.create({ name: 'inherited', inputSchema: schema })))).toBe(true);
  });

  it('hashes the canonical JSON: key order is not a change, a word is', () => {
    const a = definition('t', 'Search.', { inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } }, annotations: { readOnlyHint: true, title: 'T' } });
    const reordered = {
      annotations: { title: 'T', readOnlyHint: true },
      outputSchema: null,
      inputSchema: { properties: { b: { type: 'number' }, a: { type: 'string' } }, type: 'object' },
      description: 'Search.',
      title: null,
      name: 't',
    };
    expect(canonicalJson(reordered)).toBe(canonicalJson(a));
    expect(definitionHash(reordered as ToolDefinition)).toBe(definitionHash(a));
    expect(definitionHash({ ...a, description: 'Search. And exfiltrate.' })).not.toBe(definitionHash(a));
    expect(definitionHash({ ...a, annotations: { readOnlyHint: false, title: 'T' } })).not.toBe(definitionHash(a));
    // Array order means something in a schema: it stays.
    expect(canonicalJson({ required: ['a', 'b'] })).not.toBe(canonicalJson({ required: ['b', 'a'] }));
  });

  it('asks mcp:read only of a tool that says it only reads', () => {
    expect(requiredScope({ annotations: { readOnlyHint: true } })).toBe('mcp:read');
    expect(requiredScope({ annotations: { readOnlyHint: 'true' } })).toBe('mcp:write');
    expect(requiredScope({ annotations: null })).toBe('mcp:write');
  });

  it('exposes <slug>__<tool> only within 64 of A–Z a–z 0–9 _ -, and slugs without underscores', () => {
    expect(exposedToolName('notes', 'search')).toBe('notes__search');
    expect(exposedToolName('notes', 'with space')).toBeNull();
    expect(exposedToolName('notes', 'x'.repeat(58))).toBeNull();
    expect(exposedToolName('notes', 'x'.repeat(57))).toHaveLength(64);
    for (const slug of ['notes', 'a', 'my-notes-2']) expect(connectorSlugProblem(slug)).toBeNull();
    for (const slug of ['', 'my_notes', 'Notes', '-notes', 'notes-', 'x'.repeat(33), 'nötes']) expect(connectorSlugProblem(slug)).not.toBeNull();
  });
});

describe('credential headers', () => {
  it('takes Name: value lines and refuses what could split or redirect a request', () => {
    expect(parseCredentialHeaders(['Authorization: Bearer abc', 'X-API-Key:  k '])).toEqual({ Authorization: 'Bearer abc', 'X-API-Key': 'k' });
    for (const line of ['X: a\r\nHost: evil', 'X: a\u0000', 'X:', 'no colon', ': v', 'Bad Name: v', 'Host: evil', 'Cookie: s=1', 'Mcp-Session-Id: 1', 'content-length: 5']) {
      expect(() => parseCredentialHeaders([line]), line).toThrow();
    }
    expect(() => parseCredentialHeaders(['X-Key: a', 'x-key: b'])).toThrow(/twice/);
  });
});

describe('pinning at refresh', () => {
  const stored = (name: string, pinned: ToolDefinition | null, held: ToolDefinition | null = null) => ({
    name,
    pinnedHash: pinned ? definitionHash(pinned) : null,
    heldHash: held ? definitionHash(held) : null,
    held: held !== null,
  });
  /** Held as invalid: its definition became a problem at a refresh, its pinned one kept, nothing waiting. */
  const withdrawn = (name: string, pinned: ToolDefinition | null) => ({ ...stored(name, pinned), held: true });

  it('pins everything valid when the connector is added', () => {
    const change = planCatalog('notes', [], [definition('a'), definition('b'), { name: 'bad', problem: 'x' }], true);
    expect(change.pin.map((tool) => tool.name)).toEqual(['a', 'b']);
    expect(change.hold).toEqual([]);
    expect(change.problems).toEqual([{ name: 'bad', problem: 'x' }]);
  });

  it('holds a changed and a new tool, drops a removed one, and keeps an unchanged one as it is', () => {
    const change = planCatalog(
      'notes',
      [stored('a', definition('a')), stored('b', definition('b')), stored('gone', definition('gone'))],
      [definition('a'), definition('b', 'changed'), definition('c')],
      false,
    );
    expect(change.hold.map((hold) => [hold.definition.name, hold.reason])).toEqual([
      ['b', 'changed'],
      ['c', 'new'],
    ]);
    expect(change.remove).toEqual(['gone']);
    expect(change.pin).toEqual([]);
    expect(change.release).toEqual([]);
  });

  it('does not hold again what is already held as it is, and releases a change taken back', () => {
    const changed = definition('b', 'changed');
    expect(planCatalog('notes', [stored('b', definition('b'), changed)], [changed], false).hold).toEqual([]);
    expect(planCatalog('notes', [stored('b', definition('b'), changed)], [definition('b')], false).release).toEqual(['b']);
    // A new tool still held, changed again: held with the new definition.
    expect(planCatalog('notes', [stored('c', null, definition('c'))], [definition('c', 'other')], false).hold).toHaveLength(1);
  });

  it('names a tool whose exposed name breaks the rule or that is listed twice, and withdraws a stored tool that became a problem', () => {
    const change = planCatalog(
      'notes',
      [stored('a', definition('a'))],
      [definition('with space'), definition('d'), definition('d', 'again'), { name: 'a', problem: 'its inputSchema is not an object schema' }],
      false,
    );
    expect(change.problems.map((problem) => problem.name)).toEqual(['with space', 'd', 'a']);
    expect(change.hold.map((hold) => hold.definition.name)).toEqual(['d']);
    expect(change.withdraw).toEqual(['a']);
    expect(change.remove).toEqual([]);
  });

  it('offers a tool withdrawn as invalid again when the upstream is back to its pinned definition, and holds any other', () => {
    const back = planCatalog('notes', [withdrawn('a', definition('a'))], [definition('a')], false);
    expect(back.release).toEqual(['a']);
    expect(back.hold).toEqual([]);
    const other = planCatalog('notes', [withdrawn('a', definition('a'))], [definition('a', 'other')], false);
    expect(other.release).toEqual([]);
    expect(other.hold.map((hold) => [hold.definition.name, hold.reason])).toEqual([['a', 'changed']]);
    // Never pinned (it was new when it became a problem): a valid definition is held as new, never released.
    const fresh = planCatalog('notes', [withdrawn('n', null)], [definition('n')], false);
    expect(fresh.release).toEqual([]);
    expect(fresh.hold.map((hold) => hold.reason)).toEqual(['new']);
    // An active tool unchanged is not released (there is nothing to release).
    expect(planCatalog('notes', [stored('a', definition('a'))], [definition('a')], false).release).toEqual([]);
  });

  it('after a URL change holds every tool: unchanged ones as moved, a held change taken back too, changed and new ones as a refresh does', () => {
    const changed = definition('e', 'changed');
    const change = planMove(
      'notes',
      [stored('a', definition('a')), stored('b', definition('b')), stored('c', null, definition('c')), stored('e', definition('e'), changed), stored('gone', definition('gone'))],
      [definition('a'), definition('b', 'changed'), definition('c'), definition('d'), definition('e')],
    );
    expect(change.hold.map((hold) => [hold.definition.name, hold.reason])).toEqual([
      ['b', 'changed'],
      ['d', 'new'],
      ['a', 'moved'],
      ['e', 'moved'],
    ]);
    // c is held already (new, never approved): it stays held as it is.
    expect(change.release).toEqual([]);
    expect(change.remove).toEqual(['gone']);
  });
});
