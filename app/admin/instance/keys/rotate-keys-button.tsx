'use client';

import { useState } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { useConsoleAction } from '@/app/components/use-console-action';
import { rotateKeysAction } from './actions';

export function RotateKeysButton({ reloadSeconds }: { reloadSeconds: number }) {
  const [open, setOpen] = useState(false);
  const { pending, run } = useConsoleAction();

  function rotate() {
    run(() => rotateKeysAction({}), { settled: () => setOpen(false), done: (kids) => `New keys: ${kids.join(', ')}.` });
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
