'use client';

import { useRouter } from 'next/navigation';
import { useTransition } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { useToast } from '@/app/components/toast';
import { approveRequestAction, declineRequestAction } from './actions';

export function RequestButtons({ org, requestId, person, app }: { org: string; requestId: string; person: string; app: string }) {
  const [pending, startTransition] = useTransition();
  const notify = useToast();
  const router = useRouter();

  function answer(approve: boolean) {
    startTransition(async () => {
      if (approve) {
        const outcome = await approveRequestAction(org, { requestId });
        if (!outcome.ok) return notify('error', outcome.error);
        const others = outcome.value.approved - 1;
        notify('ok', `${app} approved${others > 0 ? `; ${others} other request${others === 1 ? '' : 's'} for it answered too` : ''}. ${person} can connect it now.`);
      } else {
        const outcome = await declineRequestAction(org, { requestId });
        if (!outcome.ok) return notify('error', outcome.error);
        notify('ok', `${person}'s request for ${app} declined.`);
      }
      router.refresh();
    });
  }

  return (
    <div className="flex gap-2">
      <button type="button" className={buttonClass('primary', 'sm')} disabled={pending} onClick={() => answer(true)} aria-label={`Approve ${app} for ${person}`}>
        Approve
      </button>
      <button type="button" className={buttonClass('secondary', 'sm')} disabled={pending} onClick={() => answer(false)} aria-label={`Decline ${person}'s request for ${app}`}>
        Decline
      </button>
    </div>
  );
}
