'use client';

import { useState } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { useConsoleAction } from '@/app/components/use-console-action';
import { setAppPolicyAction } from './actions';

type Policy = 'open' | 'approved';

const CHOICES: { value: Policy; label: string; effect: string }[] = [
  { value: 'open', label: 'Open', effect: 'Members may connect any app that is not blocked. The consent screen offers this organization for every app except blocked ones.' },
  {
    value: 'approved',
    label: 'Approved apps only',
    effect: 'Members may connect only apps an admin approved. For any other app the consent screen shows this organization as unavailable, and connections of apps that are not approved end.',
  },
];

export function AppPolicyForm({ org, policy, unapprovedConnections }: { org: string; policy: Policy; unapprovedConnections: number }) {
  const [selected, setSelected] = useState<Policy>(policy);
  const [saved, setSaved] = useState<Policy>(policy);
  const [confirming, setConfirming] = useState(false);
  const { pending, run } = useConsoleAction();

  function save() {
    run(() => setAppPolicyAction(org, { policy: selected }), {
      settled: () => setConfirming(false),
      done: ({ revoked }) => {
        setSaved(selected);
        return `App policy saved${revoked ? `; ${revoked} connection${revoked === 1 ? '' : 's'} of unapproved apps ended` : ''}.`;
      },
    });
  }

  return (
    <section aria-labelledby="policy-heading" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 id="policy-heading" className="text-lg font-semibold">
        App policy
      </h2>
      <fieldset className="space-y-2">
        <legend className="sr-only">Which apps members may connect</legend>
        {CHOICES.map((choice) => (
          <label key={choice.value} className="flex cursor-pointer gap-3 rounded border border-slate-200 p-3 has-[:checked]:border-brand has-[:checked]:bg-slate-50">
            <input type="radio" name="policy" value={choice.value} checked={selected === choice.value} onChange={() => setSelected(choice.value)} className="mt-1" />
            <span>
              <span className="font-medium">{choice.label}</span>
              <span className="block text-sm text-slate-600">{choice.effect}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <button
        type="button"
        className={buttonClass('primary')}
        disabled={pending || selected === saved}
        onClick={() => (selected === 'approved' && unapprovedConnections > 0 ? setConfirming(true) : save())}
      >
        {pending ? 'Saving…' : 'Save policy'}
      </button>
      <ConfirmDialog
        open={confirming}
        title="Allow approved apps only?"
        confirmLabel="Save and end connections"
        pendingLabel="Saving…"
        pending={pending}
        onConfirm={save}
        onCancel={() => setConfirming(false)}
      >
        <p>
          {unapprovedConnections} live connection{unapprovedConnections === 1 ? '' : 's'} of apps that are not approved will end at once. Approve the apps you want to keep first.
        </p>
      </ConfirmDialog>
    </section>
  );
}
