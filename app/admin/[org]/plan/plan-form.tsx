'use client';

import { useState } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { useConsoleAction } from '@/app/components/use-console-action';
import { Badge } from '../../components';
import { setPlanStatusAction } from './actions';

type Status = 'active' | 'inactive';

export function PlanForm({ org, orgName, status: initial }: { org: string; orgName: string; status: Status }) {
  const [status, setStatus] = useState(initial);
  const [confirming, setConfirming] = useState(false);
  const { pending, run } = useConsoleAction();
  const next: Status = status === 'active' ? 'inactive' : 'active';

  function save() {
    run(() => setPlanStatusAction(org, { status: next }), {
      settled: () => setConfirming(false),
      done: () => {
        setStatus(next);
        return `${orgName}'s plan is ${next}.`;
      },
    });
  }

  return (
    <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby="plan-status">
      <p id="plan-status" className="text-lg">
        {orgName}&apos;s plan is {status === 'active' ? <Badge tone="good">Active</Badge> : <Badge tone="bad">Inactive</Badge>}
      </p>
      <dl className="space-y-2 text-sm text-slate-700">
        <div>
          <dt className="font-medium">While active</dt>
          <dd>Members can connect apps, and connected apps can call tools on /mcp.</dd>
        </div>
        <div>
          <dt className="font-medium">While inactive</dt>
          <dd>
            Every /mcp call of every app in {orgName} is refused with 403 from the next request on, and the consent screen does not offer {orgName}. Connections are kept: they work again as soon as
            the plan is active again. The console stays open to admins.
          </dd>
        </div>
      </dl>
      <button type="button" disabled={pending} className={buttonClass(status === 'active' ? 'danger-outline' : 'primary')} onClick={() => (next === 'inactive' ? setConfirming(true) : save())}>
        {pending ? 'Saving…' : status === 'active' ? 'Deactivate the plan' : 'Activate the plan'}
      </button>
      <ConfirmDialog
        open={confirming}
        title={`Deactivate ${orgName}'s plan?`}
        confirmLabel="Deactivate"
        pendingLabel="Deactivating…"
        pending={pending}
        onConfirm={save}
        onCancel={() => setConfirming(false)}
      >
        <p>Every app connected in {orgName} is refused from its next request until the plan is active again.</p>
      </ConfirmDialog>
    </section>
  );
}
