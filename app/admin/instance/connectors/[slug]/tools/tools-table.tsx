'use client';
// The tools that are offered (not held), each with the scope it needs and its override. Lowering a tool
// from mcp:write to mcp:read lets every read-only token call it: the page asks for an explicit
// confirmation, and the server refuses the lowering without it (lib/connectors/review.ts).
import { useId, useState } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { ReviewedTool } from '@/lib/connectors/review';
import type { ToolScope } from '@/lib/connectors/definitions';
import { Badge, selectClass } from '../../../../components';
import { setToolScopeAction } from './actions';
import { VisibleText } from './visible';

type Choice = 'definition' | ToolScope;

/** What the control needs of a tool: its definitions stay on the server (a client component's props are sent to the browser). */
export type ScopedTool = Pick<ReviewedTool, 'upstreamName' | 'exposedName' | 'scope' | 'scopeOverride' | 'definitionScope'>;

export function ToolsTable({ slug, tools }: { slug: string; tools: ScopedTool[] }) {
  return (
    <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white shadow-sm" aria-label="Offered tools">
      {tools.map((tool) => (
        <li key={tool.upstreamName} className="flex min-w-0 flex-col gap-3 p-4 lg:flex-row lg:items-start lg:justify-between">
          <div className="min-w-0 space-y-1">
            <p className="font-mono text-sm font-medium break-words [overflow-wrap:anywhere]">
              <VisibleText text={tool.exposedName} />
            </p>
            <p className="flex flex-wrap gap-2">
              <Badge tone="good">Offered</Badge>
              <Badge>Needs {tool.scope}</Badge>
              {tool.scopeOverride ? <Badge tone="warn">Set by an instance admin</Badge> : <Badge>As its definition implies</Badge>}
            </p>
          </div>
          <ScopeControl slug={slug} tool={tool} />
        </li>
      ))}
    </ul>
  );
}

function ScopeControl({ slug, tool }: { slug: string; tool: ScopedTool }) {
  const id = useId();
  const current: Choice = tool.scopeOverride ?? 'definition';
  const [choice, setChoice] = useState<Choice>(current);
  const [confirmed, setConfirmed] = useState(false);
  const { pending, run } = useConsoleAction();
  const effective = (value: Choice): ToolScope => (value === 'definition' ? tool.definitionScope : value);
  const lowering = tool.scope === 'mcp:write' && effective(choice) === 'mcp:read';

  function choose(value: Choice) {
    setChoice(value);
    setConfirmed(false);
  }

  function save() {
    run(() => setToolScopeAction({ slug, tool: tool.upstreamName, scope: choice === 'definition' ? null : choice, confirmLowering: lowering && confirmed }), {
      done: ({ scope }) => {
        setConfirmed(false);
        return `${tool.exposedName} now needs ${scope}.`;
      },
    });
  }

  return (
    <div className="min-w-0 space-y-2 text-sm lg:w-80">
      <label htmlFor={`${id}-scope`} className="block font-medium">
        Scope a caller needs
      </label>
      <div className="flex flex-wrap gap-2">
        <select id={`${id}-scope`} className={selectClass} value={choice} onChange={(event) => choose(event.target.value as Choice)}>
          <option value="definition">As its definition implies ({tool.definitionScope})</option>
          <option value="mcp:read">mcp:read</option>
          <option value="mcp:write">mcp:write</option>
        </select>
        <button
          type="button"
          className={buttonClass('secondary')}
          disabled={pending || choice === current || (lowering && !confirmed)}
          onClick={save}
          aria-label={`Save the scope of ${tool.exposedName}`}
        >
          {pending ? 'Saving…' : 'Save'}
        </button>
      </div>
      {lowering ? (
        <label className="flex items-start gap-2 rounded border border-amber-300 bg-amber-50 p-2 text-amber-900">
          <input type="checkbox" className="mt-0.5" checked={confirmed} onChange={(event) => setConfirmed(event.target.checked)} />
          <span>Lower it to mcp:read: every read-only token may then call this tool, which its definition says can change things.</span>
        </label>
      ) : null}
    </div>
  );
}
