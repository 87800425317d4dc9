'use client';
// Adds someone by email. An email without an account becomes an invitation: the form then asks for the
// person's name, and the one-time link to set a password is shown once.
import { useRef, useState, type FormEvent } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { Role } from '@/lib/generated/prisma/enums';
import { inputClass, selectClass } from '../../components';
import { addMemberAction } from './actions';
import { LinkDialog, type LinkFor } from './link-dialog';
import { ROLE_LABELS, ROLES } from './roles';

export function AddMemberForm({ org, orgName, canAddOwners }: { org: string; orgName: string; canAddOwners: boolean }) {
  const form = useRef<HTMLFormElement>(null);
  const [needsName, setNeedsName] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shownLink, setShownLink] = useState<LinkFor | null>(null);
  const { pending, run } = useConsoleAction();

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const email = String(data.get('email') ?? '');
    const input = { email, role: String(data.get('role')) as Role, name: needsName === email ? String(data.get('name') ?? '').trim() : undefined };
    if (input.name === '') return setError('Enter their name to invite them.');
    setError(null);
    run(() => addMemberAction(org, input), {
      refused: setError,
      done: (result) => {
        if (result.kind === 'needs_name') {
          setNeedsName(email);
          return null;
        }
        form.current?.reset();
        setNeedsName(null);
        if (result.kind === 'added') return `${result.name} was added to ${orgName}.`;
        // The one-time link is shown in a dialog, once, instead of a toast.
        setShownLink({ name: result.name, email, link: result.link });
        return null;
      },
      // Asked for a name: nothing was stored yet.
      next: (result) => (result.kind === 'needs_name' ? 'stay' : 'refresh'),
    });
  }

  return (
    <section aria-labelledby="add-member-title" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 id="add-member-title" className="font-semibold">
        Add a member
      </h2>
      <p className="text-sm text-slate-600">Someone with an account is added at once. Anyone else is invited with a one-time link to set a password.</p>
      <form ref={form} onSubmit={onSubmit} className="mt-3 flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end" noValidate>
        <div className="flex flex-col gap-1 sm:w-72">
          <label htmlFor="member-email" className="text-sm font-medium">
            Email
          </label>
          <input
            id="member-email"
            name="email"
            type="email"
            required
            autoComplete="off"
            className={inputClass}
            onChange={(event) => needsName && event.target.value !== needsName && setNeedsName(null)}
          />
        </div>
        {needsName ? (
          <div className="flex flex-col gap-1 sm:w-56">
            <label htmlFor="member-name" className="text-sm font-medium">
              Their name
            </label>
            {/* biome-ignore lint/a11y/noAutofocus: the field appears only after the admin submitted, because the email is new; focus goes where the next answer is needed */}
            <input id="member-name" name="name" required autoComplete="off" autoFocus className={inputClass} aria-describedby="member-name-hint" />
          </div>
        ) : null}
        <div className="flex flex-col gap-1">
          <label htmlFor="member-role" className="text-sm font-medium">
            Role
          </label>
          <select id="member-role" name="role" defaultValue="member" className={selectClass}>
            {ROLES.filter((role) => canAddOwners || role !== 'owner').map((role) => (
              <option key={role} value={role}>
                {ROLE_LABELS[role]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={pending} className={buttonClass('primary')}>
          {pending ? 'Working…' : needsName ? 'Invite' : 'Add member'}
        </button>
      </form>
      {needsName ? (
        <p id="member-name-hint" className="mt-2 text-sm text-slate-700">
          No account uses {needsName} yet. Give their name to invite them: you will get a one-time link to pass on.
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="mt-2 rounded bg-red-50 px-3 py-2 text-sm text-red-800">
          {error}
        </p>
      ) : null}
      <LinkDialog shown={shownLink} onClose={() => setShownLink(null)} />
    </section>
  );
}
