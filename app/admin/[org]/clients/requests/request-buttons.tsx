'use client';

import { buttonClass } from '@/app/components/confirm-dialog';
import { useConsoleAction } from '@/app/components/use-console-action';
import { approveRequestAction, declineRequestAction } from './actions';

export function RequestButtons({ org, requestId, person, app }: { org: string; requestId: string; person: string; app: string }) {
  const { pending, run } = useConsoleAction();

  function answer(approve: boolean) {
    if (approve) {
      run(() => approveRequestAction(org, { requestId }), {
        done: ({ approved }) => {
          const others = approved - 1;
          return `${app} approved${others > 0 ? `; ${others} other request${others === 1 ? '' : 's'} for it answered too` : ''}. ${person} can connect it now.`;
        },
      });
    } else {
      run(() => declineRequestAction(org, { requestId }), { done: () => `${person}'s request for ${app} declined.` });
    }
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
