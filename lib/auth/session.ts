// The signed-in person, for server components, server actions and route handlers.
import { getServerSession } from 'next-auth';
import { authOptions } from './options';
import { personOverview, type PersonOverview } from '@/lib/people/accounts';

/** The signed-in person, read fresh from the database; null when nobody (or a disabled account) is signed in. */
export async function currentPerson(): Promise<PersonOverview | null> {
  const session = (await getServerSession(authOptions())) as { personId?: string } | null;
  if (!session?.personId) return null;
  return personOverview(session.personId);
}
