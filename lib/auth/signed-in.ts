// Who is signed in to Gatehouse, read from the next-auth session cookie of any request — also where
// next-auth's own helpers cannot run (inside the OAuth provider's request handling).
import { getToken } from 'next-auth/jwt';
import { authOptions } from './options';
import { isLiveSession } from './sign-in-sessions';

export async function signedInPersonId(headers: Headers): Promise<string | null> {
  const options = authOptions();
  const cookies = Object.fromEntries(
    (headers.get('cookie') ?? '')
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const index = part.indexOf('=');
        return [part.slice(0, index), safeDecode(part.slice(index + 1))];
      }),
  );
  const token = await getToken({
    req: { headers: Object.fromEntries(headers), cookies } as never,
    secret: options.secret,
    secureCookie: Boolean(options.useSecureCookies),
  });
  if (typeof token?.sub !== 'string' || !(await isLiveSession(token.sid, token.sub))) return null;
  return token.sub;
}

/** A malformed cookie set by someone else must not break sign-in checks. */
function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
