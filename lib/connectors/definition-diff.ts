// The review page's comparison of a tool's pinned and held definitions, field by field (the fields a
// definition hash covers, definitions.ts): text as it is, schemas and annotations as JSON pretty-printed
// with sorted keys (key order is not a change, definitionHash), and the lines that differ marked. Pure.
import { canonicalJson, type ToolDefinition } from './definitions';

export type DiffLine = { text: string; changed: boolean };

export type FieldComparison = {
  field: 'title' | 'description' | 'inputSchema' | 'outputSchema' | 'annotations';
  label: string;
  /** Null when the definition has none (or there is no such definition). */
  before: DiffLine[] | null;
  after: DiffLine[] | null;
  changed: boolean;
};

const FIELDS = [
  ['title', 'Title'],
  ['description', 'Description'],
  ['inputSchema', 'Input schema'],
  ['outputSchema', 'Output schema'],
  ['annotations', 'Annotations'],
] as const;

/** Above this many line pairs, a changed field is marked as a whole rather than line by line. */
const MAX_CELLS = 250_000;

function fieldText(definition: ToolDefinition | null, field: FieldComparison['field']): string | null {
  const value = definition?.[field] ?? null;
  if (value === null) return null;
  if (typeof value === 'string') return value;
  return JSON.stringify(JSON.parse(canonicalJson(value)), null, 2);
}

/** Marks the lines of each side that are not in their longest common subsequence. */
export function lineDiff(before: string, after: string): { before: DiffLine[]; after: DiffLine[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length * b.length > MAX_CELLS) {
    const changed = before !== after;
    return { before: a.map((text) => ({ text, changed })), after: b.map((text) => ({ text, changed })) };
  }
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  }
  const left = a.map((text) => ({ text, changed: true }));
  const right = b.map((text) => ({ text, changed: true }));
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      left[i]!.changed = false;
      right[j]!.changed = false;
      i++;
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i++;
    else j++;
  }
  return { before: left, after: right };
}

/** Each field of the two definitions, side by side. */
export function compareDefinitions(pinned: ToolDefinition | null, held: ToolDefinition | null): FieldComparison[] {
  return FIELDS.map(([field, label]) => {
    const before = fieldText(pinned, field);
    const after = fieldText(held, field);
    const changed = before !== after;
    if (before !== null && after !== null) return { field, label, ...lineDiff(before, after), changed };
    const lines = (text: string | null) => (text === null ? null : text.split('\n').map((line) => ({ text: line, changed: changed && pinned !== null && held !== null })));
    return { field, label, before: lines(before), after: lines(after), changed };
  });
}
