/**
 * Where to go after signing in: only a path on this site. Another origin, a protocol-relative `//host`,
 * a backslash trick or a non-http scheme all fall back to the home page (no open redirect).
 */
export function safeCallbackPath(value: string | undefined | null, publicUrl: string): string {
  if (!value) return '/';
  let url: URL;
  try {
    url = new URL(value, publicUrl);
  } catch {
    return '/';
  }
  if (url.origin !== new URL(publicUrl).origin) return '/';
  if (value.includes('\\') || /^\s*\/\//.test(value) || /[\u0000-\u001f]/.test(value)) return '/';
  return `${url.pathname}${url.search}${url.hash}`;
}
