'use client';

import { useState } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { FormAlert } from '@/app/components/form-alert';
import { useConsoleAction } from '@/app/components/use-console-action';
import { inputClass } from '../../../components';
import { approveDocumentAction } from './actions';

/** Approve by the URL a client presents as its client_id: Gatehouse fetches and checks the document first. */
export function DocumentUrlForm({ org }: { org: string }) {
  const [error, setError] = useState<string | null>(null);
  const { pending, run } = useConsoleAction();

  function submit(form: FormData) {
    const url = String(form.get('url') ?? '');
    run(() => approveDocumentAction(org, { url }), {
      refused: setError,
      done: (app) => {
        setError(null);
        return `${app.name} is approved.`;
      },
    });
  }

  return (
    <section aria-labelledby="document-heading" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 id="document-heading" className="text-lg font-semibold">
        Approve by metadata document URL
      </h2>
      <form action={submit} className="space-y-3">
        <div className="space-y-1">
          <label htmlFor="document-url" className="block text-sm font-medium">
            Metadata document URL
          </label>
          <input
            id="document-url"
            name="url"
            type="url"
            required
            maxLength={2000}
            placeholder="https://app.example/oauth/client.json"
            aria-describedby="document-url-hint"
            className={`${inputClass} font-mono`}
          />
          <p id="document-url-hint" className="text-xs text-slate-500">
            The https URL the app uses as its client ID. Gatehouse fetches the document now and checks it as it will when the app connects.
          </p>
        </div>
        <FormAlert message={error} />
        <button type="submit" disabled={pending} className={buttonClass('primary')}>
          {pending ? 'Fetching…' : 'Fetch and approve'}
        </button>
      </form>
    </section>
  );
}
