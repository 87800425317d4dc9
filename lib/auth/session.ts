// The signed-in person, for server components, server actions and route handlers.
import { getServerSession } from 'next-auth';
import { cookies, headers } from 'next/headers';
import { cookiesForNextAuth } from './next-auth-request';
import { authOptions } from './options';
import { isLiveSession } from './sign-in-sessions';
import { personOverview, type PersonOverview } from '@/lib/people/accounts';

export type SignIn = { person: PersonOverview; sessionId: string };

/** The signed-in person and their session, read fresh; null when nobody (or a disabled account, or an ended session) is signed in. */
export async function currentSignIn(): Promise<SignIn | null> {
  const session = (await getServerSession(await sessionRequest(), IGNORED_RESPONSE, authOptions())) as { personId?: string; sessionId?: string } | null;
  if (!session?.personId || !(await isLiveSession(session.sessionId, session.personId))) return null;
  const person = await personOverview(session.personId);
  return person ? { person, sessionId: session.sessionId as string } : null;
}

export async function currentPerson(): Promise<PersonOverview | null> {
  return (await currentSignIn())?.person ?? null;
}

/**
 * The request as next-auth's session check reads it, with its callback-URL cookie made safe: a broken one,
 * which anyone on a sibling subdomain can plant, would make next-auth throw on every page.
 */
async function sessionRequest() {
  const jar = new Map((await cookies()).getAll().map((cookie) => [cookie.name, cookie.value] as const));
  return { headers: Object.fromEntries(await headers()), cookies: cookiesForNextAuth(jar) } as never;
}

/** Pages cannot set cookies: what next-auth would refresh is dropped, as its server-component form does. */
const IGNORED_RESPONSE = { getHeader() {}, setHeader() {}, setCookie() {} } as never;
