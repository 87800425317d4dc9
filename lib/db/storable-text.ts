// Text PostgreSQL can store: its `text` columns refuse NUL, and `jsonb` refuses NUL and unpaired UTF-16
// surrogates (JSON's `\u0000` and `\ud800` escapes). Input that carries either is refused where it
// enters, as a bad request, instead of failing later as a database error (a 500).
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !UNPAIRED_SURROGATE.test(text);
}

/**
 * Whether any string in a value, key or value, is not storable. Iterative, because the value may be
 * nested deeper than the stack; and each object is visited once, because not every value is a tree:
 * a server action's arguments are decoded from React's reply format, where a forged `$0` or `$@0`
 * makes them refer to themselves. (A walk without that guard looped until the process ran out of memory.)
 */
export function containsUnstorableText(value: unknown): boolean {
  const pending: unknown[] = [value];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (!isStorableText(next)) return true;
    } else if (typeof next === 'object' && next !== null) {
      if (seen.has(next)) continue;
      seen.add(next);
      if (Array.isArray(next)) {
        for (const item of next) pending.push(item);
      } else {
        for (const [key, item] of Object.entries(next)) {
          if (!isStorableText(key)) return true;
          pending.push(item);
        }
      }
    }
  }
  return false;
}
