'use client';

import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { useToast } from '@/app/components/toast';
import { rotateKeysAction } from './actions';

export function RotateKeysButton({ reloadSeconds }: { reloadSeconds: number }) {
  const router = useRouter();
  const notify = useToast();
  const [open, setOpen] = useState(false);
  const [pending, startTransition] = useTransition();

  function rotate() {
    startTransition(async () => {
      const outcome = await rotateKeysAction({});
      setOpen(false);
      if (!outcome.ok) return notify('error', outcome.error);
      notify('ok', `New keys: ${outcome.value.join(', ')}.`);
      router.refresh();
    });
  }

  return (
    <>
      <button type="button" className={buttonClass('danger-outline')} onClick={() => setOpen(true)}>
        Rotate signing keys now
      </button>
      <ConfirmDialog open={open} title="Rotate the keys now?" confirmLabel="Rotate" pendingLabel="Rotating…" pending={pending} onConfirm={rotate} onCancel={() => setOpen(false)}>
        <p>New signing keys (RS256, ES256) and a new cookie key are created; the current ones are retired but keep verifying for a day, so nobody is signed out.</p>
        <p>This instance switches at once, the others within {reloadSeconds} seconds.</p>
      </ConfirmDialog>
    </>
  );
}
