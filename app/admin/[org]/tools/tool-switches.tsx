'use client';

import { useState, useTransition } from 'react';
import { useToast } from '@/app/components/toast';
import type { ToolSetting } from '@/lib/admin/org-policy';
import { Badge } from '../../components';
import { setToolRestrictedAction } from './actions';

export function ToolSwitches({ org, tools: initial }: { org: string; tools: ToolSetting[] }) {
  const [tools, setTools] = useState(initial);
  const [pending, startTransition] = useTransition();
  const notify = useToast();

  function toggle(tool: ToolSetting) {
    const restricted = !tool.restricted;
    startTransition(async () => {
      const outcome = await setToolRestrictedAction(org, { tool: tool.name, restricted });
      if (!outcome.ok) return notify('error', outcome.error);
      setTools((current) => current.map((item) => (item.name === tool.name ? { ...item, restricted } : item)));
      notify('ok', `${tool.title} is ${restricted ? 'off' : 'on'} for this organization.`);
    });
  }

  return (
    <ul className="space-y-3" aria-label="Tools">
      {tools.map((tool) => (
        <li key={tool.name} className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:flex-row sm:items-start sm:justify-between">
          <div className="space-y-1">
            <p className="font-medium">
              {tool.title} <code className="ml-1 text-xs text-slate-500">{tool.name}</code> {tool.scope ? <Badge>{tool.scope}</Badge> : null}
            </p>
            <p className="text-sm text-slate-600">{tool.description}</p>
          </div>
          <button
            type="button"
            role="switch"
            aria-checked={!tool.restricted}
            aria-label={`${tool.title} enabled`}
            disabled={pending}
            onClick={() => toggle(tool)}
            className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition focus:outline-none focus-visible:ring-2 focus-visible:ring-brand focus-visible:ring-offset-2 disabled:opacity-60 ${
              tool.restricted ? 'bg-slate-300' : 'bg-green-600'
            }`}
          >
            <span className={`inline-block h-5 w-5 rounded-full bg-white shadow transition ${tool.restricted ? 'translate-x-0.5' : 'translate-x-5'}`} />
          </button>
        </li>
      ))}
    </ul>
  );
}
