'use client';

import { useState } from 'react';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { ToolSetting } from '@/lib/admin/org-policy';
import { Badge } from '../../components';
import { Switch } from '../../switch';
import { setToolRestrictedAction } from './actions';

/**
 * One list of tools (the built-in ones, or one connector's), each with its switch. A connector tool's
 * switch is named by its exposed name too: titles come from the upstream and need not be unique.
 */
export function ToolSwitches({ org, label, tools: initial, ofConnector = false }: { org: string; label: string; tools: ToolSetting[]; ofConnector?: boolean }) {
  const [tools, setTools] = useState(initial);
  const { pending, run } = useConsoleAction();

  function toggle(tool: ToolSetting) {
    const restricted = !tool.restricted;
    run(() => setToolRestrictedAction(org, { tool: tool.name, restricted }), {
      done: () => {
        setTools((current) => current.map((item) => (item.name === tool.name ? { ...item, restricted } : item)));
        return `${tool.title} is ${restricted ? 'off' : 'on'} for this organization.`;
      },
      // The page's own state is all that changed.
      next: 'stay',
    });
  }

  return (
    <ul className="space-y-3" aria-label={label}>
      {tools.map((tool) => (
        <li key={tool.name} className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:flex-row sm:items-start sm:justify-between">
          <div className="min-w-0 space-y-1">
            <p className="font-medium break-words">
              {tool.title} <code className="ml-1 text-xs break-all text-slate-500">{tool.name}</code> {tool.scope ? <Badge>{tool.scope}</Badge> : null}{' '}
              {tool.held ? <Badge tone="warn">Held for review</Badge> : null}
            </p>
            {tool.description ? <p className="text-sm break-words whitespace-pre-line text-slate-600">{tool.description}</p> : null}
            {tool.held ? <p className="text-sm text-slate-600">Not offered on /mcp until an instance admin approves it; its switch here applies from then.</p> : null}
          </div>
          <Switch on={!tool.restricted} label={ofConnector ? `${tool.title} (${tool.name}) enabled` : `${tool.title} enabled`} disabled={pending} onToggle={() => toggle(tool)} />
        </li>
      ))}
    </ul>
  );
}
