'use client';

import { useState } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { FormAlert } from '@/app/components/form-alert';
import { useToast } from '@/app/components/toast';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { RegisteredClient } from '@/lib/admin/org-clients';
import { inputClass } from '../../components';
import { registerClientAction } from './actions';

/** Owners register a confidential client by hand; its secret is shown here once and never again. */
export function RegisterClientForm({ org }: { org: string }) {
  const [error, setError] = useState<string | null>(null);
  const [registered, setRegistered] = useState<RegisteredClient | null>(null);
  const { pending, run } = useConsoleAction();

  function submit(form: FormData) {
    const name = String(form.get('name') ?? '');
    const redirectUris = String(form.get('redirectUris') ?? '')
      .split(/\s+/)
      .filter(Boolean);
    run(() => registerClientAction(org, { name, redirectUris }), {
      refused: setError,
      done: (client) => {
        setError(null);
        setRegistered(client);
        return `${client.name} is registered and approved for this organization.`;
      },
    });
  }

  return (
    <section aria-labelledby="register-heading" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 id="register-heading" className="text-lg font-semibold">
        Register a confidential client
      </h2>
      <p className="text-sm text-slate-600">For a server-side app of your own that can keep a secret. It authenticates with HTTP Basic (client_secret_basic) and must still use PKCE.</p>
      {registered ? (
        <div className="space-y-2 rounded border border-amber-300 bg-amber-50 p-3 text-sm" role="alert">
          <p className="font-medium">Copy the secret now: it is shown only once.</p>
          <Secret label="Client ID" value={registered.clientId} />
          <Secret label="Client secret" value={registered.clientSecret} />
          <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => setRegistered(null)}>
            I saved it
          </button>
        </div>
      ) : (
        <form action={submit} className="space-y-3">
          <div className="space-y-1">
            <label htmlFor="client-name" className="block text-sm font-medium">
              Name
            </label>
            <input id="client-name" name="name" required maxLength={100} className={inputClass} />
          </div>
          <div className="space-y-1">
            <label htmlFor="client-redirects" className="block text-sm font-medium">
              Redirect URIs
            </label>
            <textarea id="client-redirects" name="redirectUris" required rows={3} aria-describedby="client-redirects-hint" className={`${inputClass} font-mono`} />
            <p id="client-redirects-hint" className="text-xs text-slate-500">
              One per line; exact match is required at authorization.
            </p>
          </div>
          <FormAlert message={error} />
          <button type="submit" disabled={pending} className={buttonClass('primary')}>
            {pending ? 'Registering…' : 'Register client'}
          </button>
        </form>
      )}
    </section>
  );
}

function Secret({ label, value }: { label: string; value: string }) {
  const notify = useToast();
  return (
    <div className="flex flex-wrap items-center gap-2">
      <span className="w-28 font-medium">{label}</span>
      <code className="rounded bg-white px-2 py-1 break-all" data-secret={label}>
        {value}
      </code>
      <button
        type="button"
        className={buttonClass('secondary', 'sm')}
        onClick={() =>
          navigator.clipboard?.writeText(value).then(
            () => notify('ok', `${label} copied.`),
            () => notify('error', 'Copying did not work: select the text instead.'),
          )
        }
      >
        Copy<span className="sr-only"> {label}</span>
      </button>
    </div>
  );
}
