// One held tool: its pinned and held definitions side by side (stacked on a narrow screen), field by field,
// the fields and lines that differ marked; with the decisions on it.
import { compareDefinitions } from '@/lib/connectors/definition-diff';
import type { ReviewedTool } from '@/lib/connectors/review';
import { Badge } from '../../../../components';
import { HeldToolButtons } from './review-buttons';
import { DiffLines, VisibleText } from './visible';

const REASONS: Record<string, string> = {
  new: 'New: the upstream added it after the connector was pinned. Nothing of it was approved before.',
  changed: 'Changed: its definition differs from the pinned one. The tool is left out of /mcp until you decide.',
  invalid: 'Invalid: its definition now fails a check. The pinned one is kept; there is nothing to approve until the upstream fixes it.',
  moved: 'Moved: the connector’s URL changed, so this definition now comes from another server and waits for you to look at it again.',
};

export function holdReasonText(reason: string | null): string {
  return (reason && REASONS[reason]) ?? 'Held for review.';
}

export function HeldToolCard({ slug, tool, problem }: { slug: string; tool: ReviewedTool; problem: string | null }) {
  const headingId = `held-${tool.exposedName}`;
  const fields = compareDefinitions(tool.pinned, tool.held);
  const changedCount = fields.filter((field) => field.changed).length;
  return (
    <article aria-labelledby={headingId} className="min-w-0 space-y-4 rounded-lg border border-amber-300 bg-white p-4 shadow-sm">
      <div className="space-y-1">
        <h3 id={headingId} className="text-base font-semibold break-words [overflow-wrap:anywhere]">
          <code className="font-mono">
            <VisibleText text={tool.exposedName} />
          </code>
        </h3>
        <p className="flex flex-wrap gap-2">
          <Badge tone="warn">Held · {tool.holdReason ?? 'review'}</Badge>
          <Badge>Needs {tool.scope}</Badge>
          {tool.held && tool.pinned ? <Badge>{changedCount === 1 ? '1 field changed' : `${changedCount} fields changed`}</Badge> : null}
        </p>
        <p className="text-sm text-slate-700">{holdReasonText(tool.holdReason)}</p>
        {tool.holdReason === 'invalid' && problem ? (
          <p className="text-sm text-slate-700">
            Why: <VisibleText text={problem} />
          </p>
        ) : null}
      </div>
      <div className="grid min-w-0 gap-4 md:grid-cols-2">
        <h4 className="text-sm font-semibold text-slate-800">{tool.pinned ? 'Pinned (what was approved)' : 'Pinned: nothing, it was never approved'}</h4>
        <h4 className="hidden text-sm font-semibold text-slate-800 md:block">{tool.held ? 'Held (what the upstream says now)' : 'Held: no definition to approve'}</h4>
      </div>
      <dl className="space-y-4">
        {fields.map((field) => (
          <div key={field.field} className="min-w-0 space-y-1">
            <dt className="text-sm font-medium">
              {field.label} {field.changed ? <Badge tone="warn">Changed</Badge> : null}
            </dt>
            <dd className="grid min-w-0 gap-2 md:grid-cols-2">
              <div className="min-w-0" data-side="pinned">
                <p className="text-xs text-slate-600 md:sr-only">Pinned</p>
                {field.before ? <DiffLines lines={field.before} side="before" /> : <p className="text-sm text-slate-600 italic">None</p>}
              </div>
              <div className="min-w-0" data-side="held">
                <p className="text-xs text-slate-600 md:sr-only">Held</p>
                {field.after ? <DiffLines lines={field.after} side="after" /> : <p className="text-sm text-slate-600 italic">None</p>}
              </div>
            </dd>
          </div>
        ))}
      </dl>
      {tool.heldHash ? (
        <HeldToolButtons slug={slug} tool={tool.upstreamName} label={tool.exposedName} heldHash={tool.heldHash} />
      ) : (
        <p className="text-sm text-slate-600">Nothing to approve: it is offered again as pinned once the upstream lists its pinned definition, or held with what it lists instead.</p>
      )}
    </article>
  );
}
