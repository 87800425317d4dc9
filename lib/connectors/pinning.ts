// Pinned tool definitions (docs/connectors.md, Pinning): what a refresh of a connector's catalog may change
// by itself and what waits for an instance admin. The definitions present when a connector is added are
// pinned; later, a tool whose description, schemas or annotations changed, or a tool that is new, is held
// (left out of tools/list, refused when called) until approved — against an upstream that rewrites a
// tool's description after people approved it ("rug pull" tool poisoning). A removed tool goes. Pure.
import { type DefinitionProblem, definitionHash, exposedToolName, isProblem, LIMITS, type ToolDefinition } from './definitions';

/** Why a tool is held for review (the `moved` ones only after the connector's URL changed, planMove). */
export type HoldReason = 'new' | 'changed' | 'moved';

/**
 * A tool as stored: the pinned definition's hash, the definition waiting for approval, if any, and whether
 * it is held (a tool held as invalid is held with no definition waiting).
 */
export type StoredTool = { name: string; pinnedHash: string | null; heldHash: string | null; held: boolean };

export type CatalogChange = {
  /** Tools pinned and offered as they are (only when the connector is added). */
  pin: ToolDefinition[];
  /**
   * Tools held until approved: new ones, changed ones (their pinned definition stays on record), and, when
   * the connector's URL changed, unchanged ones (moved: the same definition served by another server).
   */
  hold: { definition: ToolDefinition; reason: HoldReason }[];
  /** Tools whose held change went back to what is pinned: offered again. */
  release: string[];
  /** Tools the upstream no longer lists. */
  remove: string[];
  /** Tools that cannot be offered at all, with why (named in the connector's status). */
  problems: DefinitionProblem[];
  /** Stored tools whose definition is now one of the problems: held, their pinned definition kept. */
  withdraw: string[];
};

/**
 * What a fetched catalog changes. `initial` is the first read, when the connector is added: everything
 * valid is pinned. Names are checked against the exposed-name rule with the connector's slug.
 */
export function planCatalog(slug: string, stored: StoredTool[], fetched: (ToolDefinition | DefinitionProblem)[], initial: boolean): CatalogChange {
  const change: CatalogChange = { pin: [], hold: [], release: [], remove: [], problems: [], withdraw: [] };
  const seen = new Set<string>();
  const known = new Map(stored.map((tool) => [tool.name, tool]));
  for (const entry of fetched) {
    if (isProblem(entry)) {
      change.problems.push(entry);
      continue;
    }
    if (seen.has(entry.name)) {
      change.problems.push({ name: entry.name, problem: 'the upstream lists it more than once' });
      continue;
    }
    seen.add(entry.name);
    if (!exposedToolName(slug, entry.name)) {
      change.problems.push({ name: entry.name, problem: `"${slug}__${entry.name}" is not a tool name every client accepts (at most 64 of A–Z, a–z, 0–9, _ and -)` });
      continue;
    }
    if (seen.size > LIMITS.toolsPerConnector) {
      change.problems.push({ name: entry.name, problem: `the connector lists more than ${LIMITS.toolsPerConnector} tools` });
      continue;
    }
    const hash = definitionHash(entry);
    const before = known.get(entry.name);
    if (!before) {
      if (initial) change.pin.push(entry);
      else change.hold.push({ definition: entry, reason: 'new' });
    } else if (before.pinnedHash === null) {
      // Held since it first appeared and never approved: still new, perhaps with another definition now.
      if (before.heldHash !== hash) change.hold.push({ definition: entry, reason: 'new' });
    } else if (before.pinnedHash === hash) {
      // Back to what is pinned: a held change taken back, or a tool withdrawn as invalid (no held
      // definition, still held) whose upstream fixed it. Either way the pinned definition is offered again.
      if (before.held || before.heldHash !== null) change.release.push(entry.name);
    } else if (before.heldHash !== hash) {
      change.hold.push({ definition: entry, reason: 'changed' });
    }
  }
  for (const tool of stored) {
    if (seen.has(tool.name)) continue;
    if (change.problems.some((problem) => problem.name === tool.name)) change.withdraw.push(tool.name);
    else change.remove.push(tool.name);
  }
  return change;
}

/**
 * What a catalog read at a connector's NEW URL changes: what a refresh would, and every tool whose pinned
 * definition is unchanged is held too (reason `moved`) — the same definition from another server is not the
 * tool of the server an admin approved, so nothing it serves is offered until approved again.
 */
export function planMove(slug: string, stored: StoredTool[], fetched: (ToolDefinition | DefinitionProblem)[]): CatalogChange {
  const change = planCatalog(slug, stored, fetched, false);
  const held = new Set(change.hold.map((hold) => hold.definition.name));
  const known = new Map(stored.map((tool) => [tool.name, tool]));
  for (const entry of fetched) {
    if (isProblem(entry) || held.has(entry.name) || change.problems.some((problem) => problem.name === entry.name)) continue;
    const before = known.get(entry.name);
    // Only a pinned tool served as pinned is left: one held already (new, changed) stays as it is.
    if (!before || before.pinnedHash !== definitionHash(entry)) continue;
    change.hold.push({ definition: entry, reason: 'moved' });
    held.add(entry.name);
  }
  change.release = [];
  return change;
}
