// Text PostgreSQL can store: its `text` columns refuse NUL, and `jsonb` refuses NUL and unpaired UTF-16
// surrogates (JSON's `\u0000` and `\ud800` escapes). Input that carries either is refused where it
// enters, as a bad request, instead of failing later as a database error (a 500).
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !UNPAIRED_SURROGATE.test(text);
}

/** Whether any string in a parsed JSON value, key or value, is not storable. Iterative: the value may be nested deeper than the stack. */
export function containsUnstorableText(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (!isStorableText(next)) return true;
    } else if (Array.isArray(next)) {
      pending.push(...next);
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, item] of Object.entries(next)) {
        if (!isStorableText(key)) return true;
        pending.push(item);
      }
    }
  }
  return false;
}
