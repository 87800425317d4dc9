'use client';
// The decisions on held tools. Each names the hash of the held definition the page showed, so that one
// the upstream changed again since is refused by the server (lib/connectors/review.ts), never approved unseen.
import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import { buttonClass, ConfirmDialog } from '@/app/components/confirm-dialog';
import { useToast } from '@/app/components/toast';
import { approveHeldToolsAction, keepHoldingAction } from './actions';

type Decision = { tool: string; heldHash: string };

export function HeldToolButtons({ slug, tool, label, heldHash }: { slug: string; tool: string; label: string; heldHash: string }) {
  const router = useRouter();
  const notify = useToast();
  const [pending, startTransition] = useTransition();

  function approve() {
    startTransition(async () => {
      const outcome = await approveHeldToolsAction({ slug, decisions: [{ tool, heldHash }] });
      if (!outcome.ok) return notify('error', outcome.error);
      notify('ok', `${label} is approved: its new definition is pinned and offered on /mcp.`);
      router.refresh();
    });
  }

  function keep() {
    startTransition(async () => {
      const outcome = await keepHoldingAction({ slug, tool, heldHash });
      if (!outcome.ok) return notify('error', outcome.error);
      notify('ok', `${label} stays held: your decision is in the audit log.`);
      router.refresh();
    });
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
  const router = useRouter();
  const notify = useToast();
  const [open, setOpen] = useState(false);
  const [pending, startTransition] = useTransition();

  function approveAll() {
    startTransition(async () => {
      const outcome = await approveHeldToolsAction({ slug, decisions });
      setOpen(false);
      if (!outcome.ok) return notify('error', outcome.error);
      notify('ok', `Approved ${outcome.value.length} tools: their new definitions are pinned and offered on /mcp.`);
      router.refresh();
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
