'use client';
// The decisions on held tools. Each names the hash of the held definition the page showed, so that one
// the upstream changed again since is refused by the server (lib/connectors/review.ts), never approved unseen.
import { useState } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { useConsoleAction } from '@/app/components/use-console-action';
import { approveHeldToolsAction, keepHoldingAction } from './actions';

type Decision = { tool: string; heldHash: string };

export function HeldToolButtons({ slug, tool, label, heldHash }: { slug: string; tool: string; label: string; heldHash: string }) {
  const { pending, run } = useConsoleAction();

  function approve() {
    run(() => approveHeldToolsAction({ slug, decisions: [{ tool, heldHash }] }), { done: () => `${label} is approved: its new definition is pinned and offered on /mcp.` });
  }

  function keep() {
    run(() => keepHoldingAction({ slug, tool, heldHash }), { done: () => `${label} stays held: your decision is in the audit log.` });
  }

  return (
    <div className="flex flex-wrap gap-2">
      <button type="button" className={buttonClass('primary')} disabled={pending} onClick={approve} aria-label={`Approve ${label}`}>
        Approve
      </button>
      <button type="button" className={buttonClass('secondary')} disabled={pending} onClick={keep} aria-label={`Keep holding ${label}`}>
        Keep holding
      </button>
    </div>
  );
}

export function ApproveAllButton({ slug, decisions }: { slug: string; decisions: Decision[] }) {
  const [open, setOpen] = useState(false);
  const { pending, run } = useConsoleAction();

  function approveAll() {
    run(() => approveHeldToolsAction({ slug, decisions }), {
      settled: () => setOpen(false),
      done: (approved) => `Approved ${approved.length} tools: their new definitions are pinned and offered on /mcp.`,
    });
  }

  return (
    <>
      <button type="button" className={buttonClass('primary')} onClick={() => setOpen(true)}>
        Approve all shown
      </button>
      <ConfirmDialog
        open={open}
        title={`Approve all ${decisions.length} held tools?`}
        confirmLabel="Approve all"
        pendingLabel="Approving…"
        pending={pending}
        destructive={false}
        onConfirm={approveAll}
        onCancel={() => setOpen(false)}
      >
        <p>Each definition shown on this page is pinned and offered on /mcp. If the upstream changed any of them since this page was shown, nothing is approved and you are asked to look again.</p>
      </ConfirmDialog>
    </>
  );
}
