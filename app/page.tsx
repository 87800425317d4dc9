import Link from 'next/link';
import { redirect } from 'next/navigation';
import { ConnectCard } from '@/app/components/connect-card';
import { NarrowColumn } from '@/app/components/narrow-column';
import { administeredOrgs } from '@/lib/admin/access';
import { currentPerson } from '@/lib/auth/session';
import { SignOutButton } from './sign-out-button';

export const dynamic = 'force-dynamic';

const ROLE_LABELS = { owner: 'Owner', admin: 'Admin', member: 'Member', viewer: 'Viewer' } as const;

export default async function HomePage() {
  const person = await currentPerson();
  if (!person) redirect('/login');
  const administered = await administeredOrgs(person.id);
  return (
    <NarrowColumn>
      <div className="space-y-8">
        <section className="flex items-start justify-between gap-4">
          <div>
            <h1 className="text-2xl font-semibold">Signed in as {person.name}</h1>
            <p className="text-slate-600" data-testid="person-email">
              {person.email}
              {person.isInstanceAdmin ? <span className="ml-2 rounded bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900">Instance admin</span> : null}
            </p>
          </div>
          <SignOutButton />
        </section>
        <nav aria-label="Settings">
          <Link href="/settings/connected-apps" className="font-medium text-brand underline">
            Connected apps
          </Link>
          <span className="text-slate-600"> — the apps you allowed to act for you, and revoking them.</span>
          <br />
          <Link href="/settings/account" className="font-medium text-brand underline">
            Account
          </Link>
          <span className="text-slate-600"> — your password and where you are signed in.</span>
          {administered.length > 0 || person.isInstanceAdmin ? (
            <>
              <br />
              <Link href="/admin" className="font-medium text-brand underline">
                Admin console
              </Link>
              <span className="text-slate-600"> — govern the apps, clients and members of the organizations you administer.</span>
            </>
          ) : null}
        </nav>
        <ConnectCard />
        <section>
          <h2 className="mb-3 text-lg font-semibold">Your organizations</h2>
          {person.organizations.length === 0 ? (
            <p className="text-slate-600">You do not belong to any organization yet.</p>
          ) : (
            // Scrolls sideways on a phone rather than pushing the page wider than the screen.
            <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
              <table className="w-full text-left text-sm">
                <thead className="bg-slate-100 text-slate-700">
                  <tr>
                    <th className="px-4 py-2 font-medium">Organization</th>
                    <th className="px-4 py-2 font-medium">Role</th>
                    <th className="px-4 py-2 font-medium">Membership</th>
                    <th className="px-4 py-2 font-medium">Plan</th>
                  </tr>
                </thead>
                <tbody>
                  {person.organizations.map((org) => (
                    <tr key={org.id} className="border-t border-slate-200">
                      <td className="px-4 py-2 font-medium">{org.name}</td>
                      <td className="px-4 py-2">{ROLE_LABELS[org.role]}</td>
                      <td className="px-4 py-2">{org.membershipStatus === 'active' ? 'Active' : 'Deactivated'}</td>
                      <td className="px-4 py-2">{org.planStatus === 'active' ? 'Active' : 'Inactive'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      </div>
    </NarrowColumn>
  );
}
