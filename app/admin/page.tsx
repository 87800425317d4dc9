import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { administeredOrgs } from '@/lib/admin/access';
import { currentPerson } from '@/lib/auth/session';

export const metadata: Metadata = { title: 'Admin console' };
export const dynamic = 'force-dynamic';

/** /admin: straight to the only org someone administers, or a choice. */
export default async function AdminIndex() {
  const person = await currentPerson();
  if (!person) redirect('/login?callbackUrl=%2Fadmin');
  const orgs = await administeredOrgs(person.id);
  if (orgs.length === 0 && !person.isInstanceAdmin) notFound();
  if (orgs.length === 1 && !person.isInstanceAdmin) redirect(`/admin/${orgs[0]!.slug}`);
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <h1 className="text-2xl font-semibold">Admin console</h1>
      <ul className="space-y-3">
        {orgs.map((org) => (
          <li key={org.slug}>
            <Link
              href={`/admin/${org.slug}`}
              className="block rounded-lg border border-slate-200 bg-white p-4 shadow-sm hover:border-brand focus:outline-none focus-visible:ring-2 focus-visible:ring-brand"
            >
              <span className="font-medium">{org.name}</span>
              <span className="ml-2 text-sm text-slate-600">you are {org.role}</span>
            </Link>
          </li>
        ))}
        {person.isInstanceAdmin ? (
          <li>
            <Link
              href="/admin/instance"
              className="block rounded-lg border border-amber-200 bg-amber-50 p-4 shadow-sm hover:border-amber-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand"
            >
              <span className="font-medium">This installation</span>
              <span className="ml-2 text-sm text-slate-600">every client, organization and person; signing keys</span>
            </Link>
          </li>
        ) : null}
      </ul>
    </div>
  );
}
