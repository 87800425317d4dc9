import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { NOTE_MAX_LENGTH } from '@/lib/apps/requests';
import { type AskableOrg, type BlockedIn, loadConsent } from '@/lib/oauth/consent';
import { ConsentChoices } from './consent-choices';
import { SwitchAccountButton } from './switch-account-button';

export const metadata: Metadata = { title: 'Allow access?' };
export const dynamic = 'force-dynamic';

export default async function ConsentPage({
  params,
  searchParams,
}: {
  params: Promise<{ uid: string }>;
  searchParams: Promise<{ error?: string | string[]; org?: string | string[]; scope?: string | string[]; asked?: string | string[]; ask_error?: string | string[] }>;
}) {
  const { uid } = await params;
  const query = await searchParams;
  const cookieHeader = (await cookies()).toString();
  // What a failed submit sent back; loadConsent keeps only what this request offered and this person may pick.
  const view = await loadConsent(uid, cookieHeader, {
    error: first(query.error),
    org: first(query.org),
    scopes: all(query.scope),
    asked: first(query.asked),
    askError: first(query.ask_error),
  });

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

  const action = `/consent/${encodeURIComponent(view.uid)}/decision`;
  const signedInAs = (
    <div className="flex items-center justify-between gap-4 rounded border border-slate-200 bg-white px-4 py-2 text-sm">
      <span>
        Signed in as <strong>{view.person.name}</strong> ({view.person.email})
      </span>
      <SwitchAccountButton uid={view.uid} />
    </div>
  );

  if (view.kind === 'blocked') {
    return (
      <section className="mx-auto max-w-lg space-y-6">
        {signedInAs}
        <div className="space-y-3">
          <h1 className="text-2xl font-semibold">
            <span data-testid="client-name">{view.client.name}</span> is blocked
          </h1>
          <ul data-testid="blocked-by" className="list-disc pl-5 text-slate-700">
            {view.blockedIn.map((org) => (
              <li key={org.orgName}>{blockedLine(org)}</li>
            ))}
          </ul>
          <p className="text-sm text-slate-700">It cannot be connected in any of your organizations. If you need it, ask that admin.</p>
        </div>
        <form method="post" action={action}>
          <input type="hidden" name="csrf" value={view.csrf} />
          <button type="submit" name="decision" value="deny" className="w-full rounded bg-brand px-4 py-2 font-medium text-white hover:opacity-90">
            Return to the app
          </button>
        </form>
      </section>
    );
  }

  const eligible = view.orgs.filter((org) => org.eligible);
  const onlyOrg = eligible.length === 1 ? eligible[0]! : null;
  const { evidence } = view.client;
  return (
    <section className="mx-auto max-w-lg space-y-6">
      {signedInAs}

      <div>
        <h1 className="text-2xl font-semibold">
          {onlyOrg ? (
            <>
              Allow <span data-testid="client-name">{view.client.name}</span> to act for you in <span data-testid="heading-org">{onlyOrg.name}</span>?
            </>
          ) : eligible.length > 1 ? (
            <>
              Allow <span data-testid="client-name">{view.client.name}</span> to act for you?
            </>
          ) : (
            <>
              <span data-testid="client-name">{view.client.name}</span> cannot be connected
            </>
          )}
        </h1>
        {evidence.kind === 'none' ? (
          <p className="mt-2 text-sm text-amber-900">
            <span className="mr-2 rounded bg-amber-100 px-2 py-0.5 font-medium">Unverified</span>
            This app registered itself; Gatehouse has not checked who made it. It sends you back to <strong>{view.redirectHost}</strong>.
          </p>
        ) : evidence.kind === 'domain' ? (
          <p className="mt-2 text-sm text-emerald-900" data-testid="verified">
            <span className="mr-2 rounded bg-emerald-100 px-2 py-0.5 font-medium">Verified domain</span>
            Its details are published by {evidence.host}, fetched over https.
          </p>
        ) : (
          <p className="mt-2 text-sm text-emerald-900" data-testid="verified">
            <span className="mr-2 rounded bg-emerald-100 px-2 py-0.5 font-medium">Registered by an admin</span>
            An administrator of this Gatehouse registered this app.
          </p>
        )}
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
          <dd data-testid="resource">{`${view.resource.name} at ${view.resource.host}`}</dd>
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
            <ConsentChoices orgs={view.orgs} scopes={view.scopes} selection={view.selection} sharesProfile={view.sharesProfile} kept={view.error !== null} />

            <div className="space-y-1 text-sm text-slate-700" data-testid="consent-duration">
              <p>
                <span className="font-medium">For how long:</span>{' '}
                {view.refreshes
                  ? `until you revoke it. The app keeps its access by renewing it; after ${view.inactivityDays} days without use it has to ask you again.`
                  : `${view.accessHours === 1 ? 'an hour' : `${view.accessHours} hours`}, unless you revoke it sooner: this app does not renew its access, so then it has to ask you again.`}
              </p>
              <p>
                You can revoke it at any time in{' '}
                <a href="/settings/connected-apps" className="text-brand underline">
                  Settings → Connected apps
                </a>
                .
              </p>
            </div>

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

      {view.askable.map((org) => (
        <AskForm key={org.orgId} org={org} action={`/consent/${encodeURIComponent(view.uid)}/ask`} csrf={view.csrf} />
      ))}
    </section>
  );
}

/** "2 Dec 2026, 14:05 UTC": rendered on the server, which does not know the reader's time zone. */
function when(date: Date): string {
  return `${date.toLocaleString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' })} UTC`;
}

/**
 * "Ask an admin of <org>" for an org whose "approved apps only" policy refuses the app (docs/protocol.md §5):
 * a plain form, so it works without script, posting to the ask handler (lib/oauth/consent.ts askForAccess).
 */
function AskForm({ org, action, csrf }: { org: AskableOrg; action: string; csrf: string }) {
  const headingId = `ask-${org.orgId}`;
  const noteId = `ask-note-${org.orgId}`;
  const errorId = `ask-error-${org.orgId}`;
  return (
    <section aria-labelledby={headingId} data-testid="ask-admin" data-org={org.orgId} className="space-y-3 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <h2 id={headingId} className="font-medium">
        Ask an admin of {org.name}
      </h2>
      {org.justAsked ? (
        <p role="status" data-testid="ask-sent" className="rounded bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
          Request sent to the admins of {org.name}. Once one of them approves the app, connect it again from the app.
        </p>
      ) : org.pending ? (
        <p data-testid="ask-pending" className="text-sm text-slate-700">
          You asked the admins of {org.name} on {when(org.pending.askedAt)}; nobody has answered yet. The request expires on {when(org.pending.expiresAt)}.
        </p>
      ) : (
        <p className="text-sm text-slate-700">{org.name} allows only apps an admin approved. You can ask its admins to approve this one; they see your name, your email address and your note.</p>
      )}
      {org.error ? (
        <p role="alert" id={errorId} className="rounded bg-red-50 px-3 py-2 text-sm text-red-800">
          {org.error}
        </p>
      ) : null}
      <form method="post" action={action} className="space-y-3">
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="organization" value={org.orgId} />
        <div className="space-y-1">
          <label htmlFor={noteId} className="block text-sm font-medium">
            Note for the admins <span className="font-normal text-slate-500">(optional)</span>
          </label>
          <textarea
            id={noteId}
            name="note"
            rows={3}
            maxLength={NOTE_MAX_LENGTH}
            aria-describedby={org.error ? errorId : undefined}
            className="w-full rounded border border-slate-300 px-3 py-2 text-sm"
          />
        </div>
        <button type="submit" className="w-full rounded border border-slate-300 bg-white px-4 py-2 font-medium hover:bg-slate-100">
          {org.pending ? `Update your request to the admins of ${org.name}` : `Ask an admin of ${org.name}`}
        </button>
      </form>
    </section>
  );
}

function first(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function all(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** One org's line on the blocked page: who blocked the app there, and through which app when it was another. */
function blockedLine(org: BlockedIn): string {
  const what = org.via ?? 'this app';
  const through = org.via ? ', and this app shares a redirect with it' : '';
  if (org.everywhere) {
    const who = org.blockedBy ? `${org.blockedBy}, an administrator of this Gatehouse,` : 'An administrator of this Gatehouse';
    return `${who} blocked ${what} everywhere, ${org.orgName} included${through}.`;
  }
  const who = org.blockedBy ? `${org.blockedBy}, an admin of ${org.orgName},` : `An admin of ${org.orgName}`;
  return `${who} blocked ${what} there${through}.`;
}
