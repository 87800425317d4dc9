// The signed-in person, for server components, server actions and route handlers.
import { getServerSession } from 'next-auth';
import { authOptions } from './options';
import { isLiveSession } from './sign-in-sessions';
import { personOverview, type PersonOverview } from '@/lib/people/accounts';

export type SignIn = { person: PersonOverview; sessionId: string };

/** The signed-in person and their session, read fresh; null when nobody (or a disabled account, or an ended session) is signed in. */
export async function currentSignIn(): Promise<SignIn | null> {
  const session = (await getServerSession(authOptions())) as { personId?: string; sessionId?: string } | null;
  if (!session?.personId || !(await isLiveSession(session.sessionId, session.personId))) return null;
  const person = await personOverview(session.personId);
  return person ? { person, sessionId: session.sessionId as string } : null;
}

export async function currentPerson(): Promise<PersonOverview | null> {
  return (await currentSignIn())?.person ?? null;
}
