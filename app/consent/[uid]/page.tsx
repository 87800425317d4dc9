import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { loadConsent } from '@/lib/oauth/consent';
import { SwitchAccountButton } from './switch-account-button';

export const metadata: Metadata = { title: 'Allow access?' };
export const dynamic = 'force-dynamic';

const ROLE_NAMES = { owner: 'owner', admin: 'admin', member: 'member', viewer: 'viewer' } as const;

export default async function ConsentPage({ params, searchParams }: { params: Promise<{ uid: string }>; searchParams: Promise<{ error?: string }> }) {
  const { uid } = await params;
  const { error } = await searchParams;
  const cookieHeader = (await cookies()).toString();
  const view = await loadConsent(uid, cookieHeader, error ?? null);

  if (view.kind === 'sign-in') redirect(view.loginPath);
  if (view.kind === 'expired') {
    return (
      <section className="mx-auto max-w-lg space-y-3">
        <h1 className="text-2xl font-semibold">This request has expired</h1>
        <p className="text-slate-700">
          The app&apos;s request to connect is no longer valid — it is older than 30 minutes, was already answered, or was started in another browser. Go back to the app and start connecting again.
        </p>
      </section>
    );
  }

  const eligible = view.orgs.filter((org) => org.eligible);
  const firstEligible = eligible[0]?.orgId;
  const action = `/consent/${encodeURIComponent(view.uid)}/decision`;
  return (
    <section className="mx-auto max-w-lg space-y-6">
      <div className="flex items-center justify-between gap-4 rounded border border-slate-200 bg-white px-4 py-2 text-sm">
        <span>
          Signed in as <strong>{view.person.name}</strong> ({view.person.email})
        </span>
        <SwitchAccountButton uid={view.uid} />
      </div>

      <div>
        <h1 className="text-2xl font-semibold">
          Allow <span data-testid="client-name">{view.client.name}</span> to access Gatehouse?
        </h1>
        {view.client.unverified ? (
          <p className="mt-2 text-sm text-amber-900">
            <span className="mr-2 rounded bg-amber-100 px-2 py-0.5 font-medium">Unverified</span>
            This app registered itself; Gatehouse has not checked who made it.
          </p>
        ) : null}
        <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm text-slate-700">
          {view.client.identityHost ? (
            <>
              <dt className="font-medium">Published by</dt>
              <dd data-testid="identity-host">{view.client.identityHost}</dd>
            </>
          ) : null}
          <dt className="font-medium">Returns you to</dt>
          <dd data-testid="redirect-host">{view.redirectHost}</dd>
          <dt className="font-medium">Access to</dt>
          <dd data-testid="resource">{view.resource}</dd>
        </dl>
      </div>

      {view.error ? (
        <p role="alert" id="consent-error" className="rounded bg-red-50 px-3 py-2 text-sm text-red-800">
          {view.error}
        </p>
      ) : null}

      <form method="post" action={action} className="space-y-6 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <input type="hidden" name="csrf" value={view.csrf} />
        {eligible.length === 0 ? (
          <div className="space-y-3">
            <p className="text-slate-800">You cannot connect this app in any of your organizations right now.</p>
            <ul className="list-disc pl-5 text-sm text-slate-700">
              {view.orgs.map((org) => (
                <li key={org.orgId}>
                  {org.name}: {org.reason}
                </li>
              ))}
              {view.orgs.length === 0 ? <li>You are not an active member of any organization.</li> : null}
            </ul>
            <button type="submit" name="decision" value="deny" className="w-full rounded bg-brand px-4 py-2 font-medium text-white hover:opacity-90">
              Return to the app
            </button>
          </div>
        ) : (
          <>
            <fieldset className="space-y-2">
              <legend className="mb-1 font-medium">Organization</legend>
              {view.orgs.map((org) => (
                <div key={org.orgId} className="flex items-start gap-2">
                  <input type="radio" id={`org-${org.orgId}`} name="org" value={org.orgId} disabled={!org.eligible} defaultChecked={org.orgId === firstEligible} className="mt-1" />
                  <label htmlFor={`org-${org.orgId}`} className={org.eligible ? '' : 'text-slate-400'}>
                    {org.name} <span className="text-sm text-slate-500">({ROLE_NAMES[org.role]})</span>
                    {org.reason ? <span className="block text-sm">{org.reason}</span> : null}
                    {org.eligible && !org.canRunTools ? (
                      <span className="block text-sm text-amber-900">As a {ROLE_NAMES[org.role]} here you can connect, but the app will not be able to run tools.</span>
                    ) : null}
                  </label>
                </div>
              ))}
            </fieldset>

            <fieldset className="space-y-2">
              <legend className="mb-1 font-medium">This app will be able to</legend>
              {view.scopes.map(({ scope, description }) => (
                <div key={scope} className="flex items-start gap-2">
                  <input type="checkbox" id={`scope-${scope}`} name="scope" value={scope} defaultChecked className="mt-1" />
                  <label htmlFor={`scope-${scope}`}>
                    {description} <span className="text-sm text-slate-500">({scope})</span>
                  </label>
                </div>
              ))}
              {view.sharesProfile ? <p className="text-sm text-slate-600">It will also see your name and email address.</p> : null}
            </fieldset>

            <div className="flex gap-3">
              <button type="submit" name="decision" value="allow" className="flex-1 rounded bg-brand px-4 py-2 font-medium text-white hover:opacity-90">
                Allow
              </button>
              <button type="submit" name="decision" value="deny" className="flex-1 rounded border border-slate-300 bg-white px-4 py-2 font-medium hover:bg-slate-100">
                Deny
              </button>
            </div>
          </>
        )}
      </form>
    </section>
  );
}
