'use client';
// The one way a console control runs a server action (lib/server/safe-action.ts wraps every one): the
// control is pending while it runs; a refusal is said in a toast, or next to the form's fields; a success
// is said in a toast, and the page's server data is read again (or another page is opened).
import { useRouter } from 'next/navigation';
import { useTransition } from 'react';
import type { ActionResult } from '@/lib/server/safe-action';
import { useToast } from './toast';

type Next = 'refresh' | 'stay' | { push: string };

export type ConsoleActionSteps<T> = {
  /** Runs once the action has answered, either way (closes a confirmation). */
  settled?: () => void;
  /** Says a refusal: a toast unless the control shows it next to its own fields. */
  refused?: (error: string) => void;
  /** Updates the page's own state after a success, and returns what the toast says (null: no toast). */
  done: (value: T) => string | null;
  /** After a success: read the page's server data again (the default), stay as is, or open another page. */
  next?: Next | ((value: T) => Next);
};

export function useConsoleAction(): { pending: boolean; run: <T>(action: () => Promise<ActionResult<T>>, steps: ConsoleActionSteps<T>) => void } {
  const [pending, startTransition] = useTransition();
  const notify = useToast();
  const router = useRouter();

  function run<T>(action: () => Promise<ActionResult<T>>, steps: ConsoleActionSteps<T>): void {
    startTransition(async () => {
      const outcome = await action();
      steps.settled?.();
      if (!outcome.ok) {
        if (steps.refused) steps.refused(outcome.error);
        else notify('error', outcome.error);
        return;
      }
      const said = steps.done(outcome.value);
      if (said) notify('ok', said);
      const next = typeof steps.next === 'function' ? steps.next(outcome.value) : (steps.next ?? 'refresh');
      if (next === 'refresh') router.refresh();
      else if (next !== 'stay') router.push(next.push);
    });
  }

  return { pending, run };
}
