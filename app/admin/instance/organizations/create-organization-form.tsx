'use client';

import { useState, type FormEvent } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { useToast } from '@/app/components/toast';
import { useConsoleAction } from '@/app/components/use-console-action';
import { inputClass } from '../../components';
import { createOrganizationAction } from './actions';

/** A new organization for a person who already has an account; they become its owner. */
export function CreateOrganizationForm() {
  const notify = useToast();
  const [error, setError] = useState<string | null>(null);
  const { pending, run } = useConsoleAction();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const input = { name: String(data.get('name') ?? ''), slug: String(data.get('slug') ?? '') || undefined, ownerEmail: String(data.get('ownerEmail') ?? '') };
    run(() => createOrganizationAction(input), {
      // Next to the fields and in a toast: the form is long enough that its alert may be out of view.
      refused: (message) => {
        setError(message);
        notify('error', message);
      },
      done: (created) => {
        setError(null);
        form.reset();
        return `${input.name} was created at /admin/${created.slug}.`;
      },
    });
  }

  return (
    <section aria-labelledby="create-organization" className="max-w-xl space-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 id="create-organization" className="text-lg font-semibold">
        Create an organization
      </h2>
      <form onSubmit={submit} className="space-y-3" aria-describedby={error ? 'create-organization-error' : undefined}>
        <div className="space-y-1">
          <label htmlFor="org-name" className="block text-sm font-medium">
            Name
          </label>
          <input id="org-name" name="name" required maxLength={100} className={inputClass} />
        </div>
        <div className="space-y-1">
          <label htmlFor="org-slug" className="block text-sm font-medium">
            Address <span className="font-normal text-slate-500">(optional)</span>
          </label>
          <input id="org-slug" name="slug" maxLength={63} pattern="[a-z0-9][a-z0-9\-]*" aria-describedby="org-slug-hint" className={inputClass} />
          <p id="org-slug-hint" className="text-sm text-slate-500">
            Its console is at /admin/<em>address</em>. Lower-case letters, digits and hyphens; made from the name when left empty.
          </p>
        </div>
        <div className="space-y-1">
          <label htmlFor="org-owner" className="block text-sm font-medium">
            Owner’s email
          </label>
          <input id="org-owner" name="ownerEmail" type="email" required autoComplete="off" aria-describedby="org-owner-hint" className={inputClass} />
          <p id="org-owner-hint" className="text-sm text-slate-500">
            Someone who already has an account; they become the organization’s owner.
          </p>
        </div>
        {error ? (
          <p id="create-organization-error" className="text-sm text-red-800">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={pending} className={buttonClass('primary')}>
          {pending ? 'Creating…' : 'Create organization'}
        </button>
      </form>
    </section>
  );
}
