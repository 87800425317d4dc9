// Server-action payloads are checked before the framework decodes them. React's reply format lets a
// string stand for something other than itself: `$@1` is a promise of part 1, `$1` part 1 itself, `$Q1` a
// Map built from it, `$h1` a bound server function, `$T` an opaque client value. A forged payload can make
// these refer to themselves or to parts that were never sent, and React's decoder then fails (or loops)
// before any Gatehouse code runs — a 500 where a 400 belongs. Gatehouse's own pages only ever send plain
// JSON values, FormData (`$K`, from forms) and, for a form submitted before its script loaded, the bound-
// arguments promise (`$@`); this module admits exactly those, with every reference pointing forward to a
// part that is present, so nothing can form a cycle or dangle.

/** One part of a payload: its number (the decoder's chunk id) and its JSON text. */
export type PayloadPart = { id: number; text: string };

/** Strings React's client writes for values JSON cannot carry; each decodes to a plain value. */
const PLAIN_SPECIAL = new Set(['$undefined', '$NaN', '$Infinity', '$-Infinity', '$-0']);
/** A reference to another part, and nothing after it (a `:path` into that part is never sent by the client). */
const PART_REFERENCE = /^\$@?([0-9a-f]{1,8})$/;
const FORM_DATA_REFERENCE = /^\$K[0-9a-f]{1,8}$/;
/** React refuses BigInts longer than 300 digits, with an exception; anything else here would too. */
const BIG_INT = /^\$n-?[0-9]{1,300}$/;
const MAX_DEPTH = 32;

/** What the root part must be: a call's argument list, or the descriptor of a form's bound action. */
export type PayloadRoot = 'arguments' | 'descriptor';

/** The framework's limit on an action's arguments (it throws beyond it). */
const MAX_ARGUMENTS = 1000;

/**
 * Why the payload cannot be passed to the decoder, or null when it can. `formData` says whether FormData
 * references (`$K…`) may appear, which only a multipart fetch payload can carry. A call's root part is
 * applied as the action's argument list, so it must be an array (a number there is a TypeError in the
 * framework); a form's root describes the action (`{"id":…,"bound":…}`).
 */
export function refuseActionPayload(parts: PayloadPart[], options: { formData: boolean; root: PayloadRoot }): string | null {
  if (!parts.some((part) => part.id === 0)) return 'the payload has no root part';
  const present = new Set(parts.map((part) => part.id));
  for (const part of parts) {
    let value: unknown;
    try {
      value = JSON.parse(part.text);
    } catch {
      return `part ${part.id} is not JSON`;
    }
    if (part.id === 0) {
      const refusal = refuseRoot(value, options.root) ?? (options.root === 'descriptor' ? refuseBound(value as Record<string, unknown>, parts) : null);
      if (refusal) return refusal;
    }
    // JSON.parse builds a tree, so a walk with an explicit stack ends and cannot overflow; React's own
    // walk is recursive, so depth is bounded here too (Gatehouse's forms send three levels at most).
    const stack: { item: unknown; depth: number }[] = [{ item: value, depth: 0 }];
    while (stack.length > 0) {
      const { item, depth } = stack.pop()!;
      if (typeof item === 'string') {
        const refusal = refuseString(item, part.id, present, options);
        if (refusal) return refusal;
      } else if (item !== null && typeof item === 'object') {
        if (depth >= MAX_DEPTH) return `part ${part.id} nests deeper than ${MAX_DEPTH} levels`;
        for (const entry of Object.values(item)) stack.push({ item: entry, depth: depth + 1 });
      }
    }
  }
  return null;
}

function refuseRoot(value: unknown, root: PayloadRoot): string | null {
  if (root === 'arguments') {
    if (!Array.isArray(value)) return 'the arguments are not a list';
    if (value.length > MAX_ARGUMENTS) return `more than ${MAX_ARGUMENTS} arguments`;
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'the action descriptor is not an object';
  return null;
}

/**
 * A form's bound arguments are applied to the action as a list: React's client sends none (`null`) or a
 * promise of a part holding an array (`"$@1"`). Anything else there — a promise of `null`, a number — is
 * a TypeError inside the framework, before the action runs.
 */
function refuseBound(descriptor: Record<string, unknown>, parts: PayloadPart[]): string | null {
  const bound = descriptor.bound;
  if (bound === null || bound === undefined) return null;
  const reference = typeof bound === 'string' ? /^\$@([0-9a-f]{1,8})$/.exec(bound) : null;
  if (!reference) return 'the bound arguments are not a list';
  const target = parts.find((part) => part.id === Number.parseInt(reference[1]!, 16));
  if (!target || target.id === 0) return null; // a dangling or backward reference is refused with its own reason below
  try {
    return Array.isArray(JSON.parse(target.text)) ? null : 'the bound arguments are not a list';
  } catch {
    return null; // refused as "not JSON" below
  }
}

function refuseString(text: string, partId: number, present: Set<number>, options: { formData: boolean }): string | null {
  if (!text.startsWith('$') || text.startsWith('$$')) return null;
  if (PLAIN_SPECIAL.has(text) || text.startsWith('$D') || BIG_INT.test(text)) return null;
  if (options.formData && FORM_DATA_REFERENCE.test(text)) return null;
  const reference = PART_REFERENCE.exec(text);
  if (reference) {
    const target = Number.parseInt(reference[1]!, 16);
    if (!present.has(target)) return `part ${partId} refers to part ${target}, which was not sent`;
    // Forward only: parts then form a tree ordered by number, which cannot contain a cycle.
    if (target <= partId) return `part ${partId} refers back to part ${target}`;
    return null;
  }
  return `part ${partId} holds a reference React's client never sends here (${JSON.stringify(text.slice(0, 20))})`;
}

/** The numbered parts of a multipart payload whose part names are `<prefix><decimal id>`. */
export function partsFromForm(form: FormData, prefix: string): PayloadPart[] | string {
  const parts: PayloadPart[] = [];
  for (const [name, value] of form.entries()) {
    if (!name.startsWith(prefix)) continue;
    const id = name.slice(prefix.length);
    if (!/^(0|[1-9][0-9]{0,8})$/.test(id)) continue;
    if (typeof value !== 'string') return `part ${id} is a file, not JSON`;
    parts.push({ id: Number(id), text: value });
  }
  const ids = parts.map((part) => part.id);
  if (new Set(ids).size !== ids.length) return 'a part is sent twice';
  return parts;
}

/**
 * The prefixes of the bound-argument payloads in a form submitted without its script (`$ACTION_REF_<n>`
 * names the payload `$ACTION_<n>:…`), as React's decodeAction reads them.
 */
export function boundArgumentPrefixes(form: FormData): string[] {
  const prefixes: string[] = [];
  for (const name of form.keys()) {
    if (name.startsWith('$ACTION_REF_')) prefixes.push(`$ACTION_${name.slice('$ACTION_REF_'.length)}:`);
  }
  return prefixes;
}
