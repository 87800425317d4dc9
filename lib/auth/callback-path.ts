/**
 * Where to go after signing in: only a path on this site. Another origin, a protocol-relative `//host`
 * (however it is spelled before normalization: `/.//host`, `/%2e//host`…), a backslash trick or a
 * non-http scheme all fall back to the home page (no open redirect). So does what is neither a path nor
 * an absolute URL (`x`, `%zz`): next-auth's cookie holds one or the other, and anything else was written
 * by someone else.
 */
export function safeCallbackPath(value: string | undefined | null, publicUrl: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses
  if (!value || value.includes('\\') || /[\u0000-\u001f]/.test(value)) return '/';
  if (!value.startsWith('/') && !/^https?:\/\//i.test(value)) return '/';
  let url: URL;
  try {
    url = new URL(value, publicUrl);
  } catch {
    return '/';
  }
  if (url.origin !== new URL(publicUrl).origin) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Checked on what is returned, not on the input: normalization can turn `/.//evil` into `//evil`.
  if (!path.startsWith('/') || path.startsWith('//')) return '/';
  return path;
}
