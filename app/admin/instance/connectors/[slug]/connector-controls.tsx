'use client';
// Refreshing, pausing, offering and removing a connector. Removing asks for the slug to be typed, and the
// server checks it (a forged call without it removes nothing).
import { useState } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { FormAlert } from '@/app/components/form-alert';
import { useConsoleAction } from '@/app/components/use-console-action';
import { inputClass } from '../../../components';
import { offerConnectorAction, refreshConnectorAction, removeConnectorAction, setConnectorStatusAction } from '../actions';
import { Section } from './section';

const tools = (names: string[]) => (names.length === 1 ? '1 tool' : `${names.length} tools`);

export function RefreshButton({ slug }: { slug: string }) {
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { pending, run } = useConsoleAction();

  // Said next to the button rather than in a toast: a failed refresh is recorded too (the page shows it).
  function refresh() {
    run(() => refreshConnectorAction({ slug }), {
      refused: setError,
      done: (result) => {
        if (!result.ok) {
          setSaid(null);
          setError(`The refresh failed: ${result.error}.`);
        } else {
          setError(null);
          setSaid(`Refreshed: ${tools(result.held)} held, ${tools(result.released)} released, ${tools(result.removed)} removed.`);
        }
        return null;
      },
    });
  }

  return (
    <Section id="connector-refresh" title="Refresh">
      <p className="text-sm text-slate-700">Reads the tools again now: a new or changed tool is held for review, a removed one goes.</p>
      <FormAlert message={error} />
      {said ? (
        <p role="status" className="text-sm text-green-900">
          {said}
        </p>
      ) : null}
      <button type="button" onClick={refresh} disabled={pending} className={buttonClass('secondary')}>
        {pending ? 'Refreshing…' : 'Refresh now'}
      </button>
    </Section>
  );
}

export function StatusControl({ slug, name, active }: { slug: string; name: string; active: boolean }) {
  const { pending, run } = useConsoleAction();

  function change() {
    run(() => setConnectorStatusAction({ slug, status: active ? 'disabled' : 'active' }), {
      done: () => (active ? `${name} is disabled: its tools are gone from /mcp for every organization.` : `${name} is active again.`),
    });
  }

  return (
    <Section id="connector-status" title="Status">
      <p className="text-sm text-slate-700">
        {active
          ? 'Active: its tools are served to the organizations that switched it on. Disabling it takes them off /mcp at once for everyone; the switches are kept.'
          : 'Disabled: none of its tools is served. Enabling it serves them again where it is switched on.'}
      </p>
      <button type="button" onClick={change} disabled={pending} className={buttonClass(active ? 'danger-outline' : 'primary')}>
        {active ? 'Disable connector' : 'Enable connector'}
      </button>
    </Section>
  );
}

type Org = { slug: string; name: string };

export function OffersForm({ slug, all, offeredTo, orgs }: { slug: string; all: boolean; offeredTo: string[]; orgs: Org[] }) {
  const [toAll, setToAll] = useState(all);
  const [error, setError] = useState<string | null>(null);
  const { pending, run } = useConsoleAction();

  function save(form: HTMLFormElement) {
    const chosen = new FormData(form).getAll('org').map(String);
    run(() => offerConnectorAction({ slug, all: toAll, orgs: toAll ? [] : chosen }), {
      refused: setError,
      done: ({ switchedOff }) => {
        setError(null);
        return switchedOff.length ? `Offers saved; switched off for ${switchedOff.join(', ')}.` : 'Offers saved.';
      },
    });
  }

  return (
    <Section id="connector-offers" title="Offered to">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save(event.currentTarget);
        }}
        className="space-y-3"
        aria-label="Offers"
      >
        <fieldset className="space-y-2">
          <legend className="text-sm text-slate-700">Which organizations’ admins may switch it on. One no longer offered has it switched off.</legend>
          <label className="flex items-center gap-2 text-sm">
            <input type="radio" name="offer" checked={toAll} onChange={() => setToAll(true)} /> Every organization
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="radio" name="offer" checked={!toAll} onChange={() => setToAll(false)} /> Only these:
          </label>
          <ul className="grid gap-1 pl-6 sm:grid-cols-2">
            {orgs.map((org) => (
              <li key={org.slug}>
                <label className="flex items-center gap-2 text-sm break-words">
                  <input type="checkbox" name="org" value={org.slug} defaultChecked={offeredTo.includes(org.slug)} disabled={toAll} /> {org.name}{' '}
                  <code className="text-xs text-slate-500">{org.slug}</code>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <FormAlert message={error} />
        <button type="submit" disabled={pending} className={buttonClass('primary')}>
          {pending ? 'Saving…' : 'Save offers'}
        </button>
      </form>
    </Section>
  );
}

export function DeleteConnector({ slug, name }: { slug: string; name: string }) {
  const [error, setError] = useState<string | null>(null);
  const { pending, run } = useConsoleAction();

  function remove(form: HTMLFormElement) {
    const confirm = String(new FormData(form).get('confirm') ?? '');
    run(() => removeConnectorAction({ slug, confirm }), {
      refused: setError,
      done: () => `${name} was deleted.`,
      next: () => ({ push: '/admin/instance/connectors' }),
    });
  }

  return (
    <Section id="connector-delete" title="Delete">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          remove(event.currentTarget);
        }}
        className="space-y-3"
        aria-label="Delete the connector"
      >
        <p className="text-sm text-slate-700">Deletes the connector, its tools and every organization’s switch for it. Its tools are gone from /mcp at once.</p>
        <div className="space-y-1">
          <label htmlFor="delete-confirm" className="block text-sm font-medium">
            Type <code>{slug}</code> to confirm
          </label>
          <input id="delete-confirm" name="confirm" autoComplete="off" spellCheck={false} className={inputClass} />
        </div>
        <FormAlert message={error} />
        <button type="submit" disabled={pending} className={buttonClass('danger')}>
          {pending ? 'Deleting…' : 'Delete connector'}
        </button>
      </form>
    </Section>
  );
}
