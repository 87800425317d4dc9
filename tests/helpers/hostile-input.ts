// Hostile input for property tests: fast-check arbitraries for what an attacker or a broken client
// sends — random bytes, deep nesting, numbers no parser represents, unicode that breaks naive code,
// duplicate keys, prototype keys, every known field with the wrong type, fields and bodies over their
// limits — and a small runner that sends them a few at a time and counts what it sent.
import fc from 'fast-check';

/** Strings that have broken string handling somewhere: surrogates, NUL, direction marks, combining marks. */
const UNICODE_EDGES = [
  '\uD800', // lone high surrogate
  '\uDFFF', // lone low surrogate
  'a\uD83D', // high surrogate at the end
  '\uDE00b', // low surrogate first
  '\u0000',
  'nul\u0000inside',
  '\u202Egnp.exe', // right-to-left override
  '\u200F\u200E\u061C', // direction marks
  '\uFEFF', // byte order mark
  '\u2028\u2029', // line and paragraph separators (invalid in old JS string literals)
  'e\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308', // stacked combining marks
  'Z\u0335\u0321\u032A\u0347\u031C\u032D\u032D\u0355\u0300\u0344\u0311\u0308',
  '\u{1D54F}\u{1F600}\u{10FFFF}', // astral planes, the last code point
  '\uFFFE\uFFFF', // noncharacters
  '\u0085\u00A0\u1680\u3000', // exotic whitespace
  'ＡＤＭＩＮ', // fullwidth
  '\u0130\u0131ß', // case mapping changes length
  '../../etc/passwd',
  '%00%0d%0a',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as plain text on purpose
  '${7*7}{{7*7}}',
];

/** Keys that reach prototypes or shadow built-ins when code copies objects carelessly. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];

/** JSON number tokens beyond what a double holds, or that JavaScript reads surprisingly. */
const HUGE_NUMBER_TOKENS = [
  '1e309',
  '-1e309',
  '1e-400',
  '-0',
  '9007199254740993',
  '123456789012345678901234567890123456789012345678901234567890',
  '-99999999999999999999999999999999999999e99',
  '0.0000000000000000000000000000000000001',
  '1E+2',
  String(Number.MAX_VALUE),
  String(Number.MIN_VALUE),
];

export const unicodeEdge: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...UNICODE_EDGES),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);

/** A string up to `max` characters long: most short, some far past any field limit. */
export function oversizedString(max = 70_000): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom('a', 'é', '\u{1F600}', '%', '0', ' '), fc.integer({ min: 257, max })).map(([unit, length]) => unit.repeat(length));
}

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 4, arbitrary: unicodeEdge },
  { weight: 1, arbitrary: oversizedString(5_000) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS, '', ' ', 'null', 'undefined', 'NaN', 'true', '[]', '{}') },
);

export const hugeNumberToken: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HUGE_NUMBER_TOKENS),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc.integer().map(String),
);

/** Text of JSON arrays or objects nested `depth` levels deep (a parser's or a recursive walker's stack). */
export const deepNestingText: fc.Arbitrary<string> = fc.tuple(fc.integer({ min: 64, max: 60_000 }), fc.constantFrom('array', 'object', 'mixed')).map(([depth, shape]) => {
  if (shape === 'array') return '['.repeat(depth) + ']'.repeat(depth);
  if (shape === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return `${'{"a":['.repeat(depth)}0${']}'.repeat(depth)}`;
});

const keyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: unicodeEdge },
);

/**
 * The text of any JSON value, written by hand so that it can hold what JSON.stringify never writes:
 * duplicate keys, number tokens beyond a double's range, lone surrogates as escapes.
 */
export const hostileJsonText: fc.Arbitrary<string> = fc.letrec<{ value: string; leaf: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('array'), tie('object')),
  leaf: fc.oneof(
    fc.constantFrom('true', 'false', 'null', '""', '0'),
    hugeNumberToken,
    hostileString.map((text) => JSON.stringify(text)),
  ),
  array: fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
  object: fc.array(fc.tuple(keyText, tie('value')), { maxLength: 5 }).map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
})).value;

/** A value of each JSON type, to put where a field expects another one. */
export const wrongTypeText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '[]', '{}', '""', '0', '-1', '[null]', '{"__proto__":{"admin":true}}', '"[object Object]"'),
  hugeNumberToken,
  hostileString.map((text) => JSON.stringify(text)),
  hostileJsonText,
);

/**
 * The text of a JSON object built from a valid one: each field kept, dropped, given a hostile value or
 * a wrong type, or repeated with another value (duplicate keys: JSON.parse keeps the last); extra keys,
 * prototype keys among them, may follow.
 */
export function mutatedObjectText(valid: Record<string, unknown>, valueFor: Record<string, fc.Arbitrary<string>> = {}): fc.Arbitrary<string> {
  const fields = Object.entries(valid).map(([key, value]) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant([[key, JSON.stringify(value)]] as [string, string][]) },
      { weight: 1, arbitrary: fc.constant([] as [string, string][]) },
      { weight: 3, arbitrary: (valueFor[key] ?? wrongTypeText).map((text) => [[key, text]] as [string, string][]) },
      {
        weight: 1,
        arbitrary: wrongTypeText.map(
          (text) =>
            [
              [key, text],
              [key, JSON.stringify(value)],
            ] as [string, string][],
        ),
      },
      {
        weight: 1,
        arbitrary: wrongTypeText.map(
          (text) =>
            [
              [key, JSON.stringify(value)],
              [key, text],
            ] as [string, string][],
        ),
      },
    ),
  );
  const extras = fc.array(fc.tuple(keyText, wrongTypeText), { maxLength: 3 });
  return fc.tuple(fc.tuple(...fields), extras, fc.boolean()).chain(([kept, extra, shuffle]) => {
    const entries = [...kept.flat(), ...extra];
    return (shuffle ? fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }) : fc.constant(entries)).map(
      (ordered) => `{${ordered.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`,
    );
  });
}

/** Raw bytes: random, or UTF-8 that is not valid (overlong forms, encoded surrogates, stray continuations). */
export type Bytes = Uint8Array<ArrayBuffer>;

export const randomBytes: fc.Arbitrary<Bytes> = fc.oneof(
  fc.uint8Array({ maxLength: 2048 }).map((bytes) => new Uint8Array(bytes)),
  fc.constantFrom(
    Uint8Array.from([0xc0, 0x80]),
    Uint8Array.from([0xed, 0xa0, 0x80]),
    Uint8Array.from([0x80, 0x80, 0x80]),
    Uint8Array.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
    Uint8Array.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
  ),
);

/** A body for a JSON endpoint: mostly shaped like `valid`, else any JSON, deep nesting, bytes or a huge body. */
export function hostileJsonBody(valid: Record<string, unknown>, valueFor: Record<string, fc.Arbitrary<string>> = {}, maxBytes = 1_100_000): fc.Arbitrary<string | Bytes> {
  return fc.oneof(
    { weight: 12, arbitrary: mutatedObjectText(valid, valueFor) },
    { weight: 3, arbitrary: hostileJsonText },
    { weight: 1, arbitrary: deepNestingText },
    { weight: 2, arbitrary: randomBytes },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', 'null', '[]', '[{}]', '"text"', '{', '{"a":1,}', 'NaN', '{"a":1}{"b":2}') },
    { weight: 1, arbitrary: fc.integer({ min: maxBytes - 1024, max: maxBytes + 4096 }).map((length) => `{"x":"${'a'.repeat(length)}"}`) },
  );
}

/** A form value: text of any sort, percent-encoding that decodes to nothing valid, or too much of it. */
const hostileFormValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileString.map((text) => encodeFormComponent(text)) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%z', '%zz', '%C0%80', '%ED%A0%80', '%FF', '%00', '%2', '+', '&', '=', '==', '%E2%80%AE') },
  { weight: 1, arbitrary: oversizedString(3_000).map(encodeFormComponent) },
);

/** Text a form value never holds safely encoded: lone surrogates go out as their bytes would (invalid UTF-8). */
function encodeFormComponent(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text.replace(/[\uD800-\uDFFF]/g, '%ED%A0%80').replace(/[^A-Za-z0-9%]/g, (char) => encodeURIComponent(char));
  }
}

/**
 * An `application/x-www-form-urlencoded` body (or query string) built from valid parameters: each kept,
 * dropped, replaced, or repeated (duplicate parameters), plus extra names such as `__proto__`.
 */
export function hostileForm(valid: Record<string, string>, valueFor: Record<string, fc.Arbitrary<string>> = {}): fc.Arbitrary<string> {
  const fields = Object.entries(valid).map(([name, value]) => {
    const good = `${name}=${encodeURIComponent(value)}`;
    const bad = (valueFor[name] ?? hostileFormValue).map((text) => `${name}=${text}`);
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant([good]) },
      { weight: 1, arbitrary: fc.constant([] as string[]) },
      { weight: 3, arbitrary: bad.map((pair) => [pair]) },
      { weight: 1, arbitrary: bad.map((pair) => [good, pair]) },
      { weight: 1, arbitrary: bad.map((pair) => [pair, good]) },
    );
  });
  const extraName = fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS, '', '=', '[]', 'a[b][c]', 'scope[]'), hostileString.map(encodeFormComponent));
  const extras = fc.array(
    fc.tuple(extraName, hostileFormValue).map(([name, value]) => `${name}=${value}`),
    { maxLength: 3 },
  );
  return fc.tuple(fc.tuple(...fields), extras).map(([kept, extra]) => [...kept.flat(), ...extra].join('&'));
}

/** Header values an HTTP client can send (visible ASCII and Latin-1, no CR, LF or NUL). */
export const hostileHeaderValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 60 }),
  fc.string({ unit: fc.integer({ min: 0xa0, max: 0xff }).map((code) => String.fromCharCode(code)), maxLength: 20 }),
  fc.constantFrom('', ' ', '\t', 'null', '*/*', '0', '-1', '9'.repeat(400), 'a'.repeat(4000)),
);

/** Answers counted by HTTP status, for the report a fuzz run prints. */
export type Tally = Record<string, number>;

export function tallied(tally: Tally, status: number): void {
  tally[status] = (tally[status] ?? 0) + 1;
}

export function total(tally: Tally): number {
  return Object.values(tally).reduce((sum, n) => sum + n, 0);
}

/**
 * Sends `inputs` generated inputs, `parallel` at a time (a few clients at once, as a real server sees
 * them). The first failing answer stops the run (no shrinking: each try costs requests, and a hang costs
 * seconds); fast-check reports the batch and the seed that replays it. Returns how many were sent.
 */
export async function fuzz<T>(arbitrary: fc.Arbitrary<T>, options: { inputs: number; parallel: number; seed?: number }, send: (input: T) => Promise<void>): Promise<number> {
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(arbitrary, { minLength: options.parallel, maxLength: options.parallel }), async (batch) => {
      sent += batch.length;
      await Promise.all(batch.map(send));
    }),
    { numRuns: Math.ceil(options.inputs / options.parallel), seed: options.seed, endOnFailure: true },
  );
  return sent;
}

/** A fetch that fails the test instead of waiting forever: a hang is a finding like a 500 is. */
export async function fetchWithin(url: string, init: RequestInit, ms = 15_000): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(ms) });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new Error(`no answer within ${ms} ms: ${init.method ?? 'GET'} ${url.slice(0, 200)}`);
    throw error;
  }
}
