'use client';

// The consent form's choices: the organization, the scopes, and the tools the app could call with them.
// The server computes the tool list for every org and every set of ticks (lib/oauth/consent.ts, from the
// gates /mcp applies); this only looks the current choice up, so the list follows the pick and the boxes.
// Rendered on the server with the opening choice, it is a plain working form before (or without) script.
import { useState } from 'react';
import type { ConsentOrg } from '@/lib/oauth/consent';
import type { McpScope } from '@/lib/oauth/scopes';

type Props = {
  orgs: ConsentOrg[];
  scopes: { scope: McpScope; description: string }[];
  selection: { orgId: string | null; scopes: McpScope[] };
  sharesProfile: boolean;
  /** True when the person already chose (a failed submit came back): their ticks are kept as they were. */
  kept: boolean;
};

export function ConsentChoices({ orgs, scopes, selection, sharesProfile, kept }: Props) {
  const [orgId, setOrgId] = useState(selection.orgId);
  const [ticked, setTicked] = useState<McpScope[]>(selection.scopes);
  const [touched, setTouched] = useState(kept);
  const offered = scopes.map(({ scope }) => scope);
  const org = orgs.find((candidate) => candidate.orgId === orgId) ?? null;
  const key = offered.filter((scope) => ticked.includes(scope)).join(' ');
  const tools = org?.tools[key] ?? [];

  function pick(next: ConsentOrg) {
    setOrgId(next.orgId);
    // Until the person ticks a box themselves, the ticks follow what the picked org's role can use.
    if (!touched) setTicked(next.usableScopes);
  }

  function tick(scope: McpScope, on: boolean) {
    setTouched(true);
    setTicked((current) => (on ? [...current.filter((item) => item !== scope), scope] : current.filter((item) => item !== scope)));
  }

  return (
    <>
      <fieldset className="space-y-2">
        <legend className="mb-1 font-medium">Organization</legend>
        {orgs.map((choice) => (
          <div key={choice.orgId} className="flex items-start gap-2">
            <input
              type="radio"
              id={`org-${choice.orgId}`}
              name="org"
              value={choice.orgId}
              disabled={!choice.eligible}
              checked={choice.orgId === orgId}
              onChange={() => pick(choice)}
              className="mt-1"
            />
            <label htmlFor={`org-${choice.orgId}`} className={choice.eligible ? '' : 'text-slate-400'}>
              {choice.name} <span className="text-sm text-slate-500">({choice.role})</span>
              {choice.reason ? <span className="block text-sm">{choice.reason}</span> : null}
              {choice.eligible && !choice.canRunTools ? (
                <span className="block text-sm text-amber-900">As a {choice.role} here you can connect, but the app will not be able to run tools.</span>
              ) : null}
            </label>
          </div>
        ))}
      </fieldset>

      <fieldset className="space-y-2">
        <legend className="mb-1 font-medium">This app will be able to</legend>
        {scopes.map(({ scope, description }) => (
          <div key={scope} className="flex items-start gap-2">
            <input type="checkbox" id={`scope-${scope}`} name="scope" value={scope} checked={ticked.includes(scope)} onChange={(event) => tick(scope, event.target.checked)} className="mt-1" />
            <label htmlFor={`scope-${scope}`}>
              {description} <span className="text-sm text-slate-500">({scope})</span>
              {org && !org.usableScopes.includes(scope) ? <span className="block text-sm text-slate-600">Your role in {org.name} gives the app nothing to do with this.</span> : null}
            </label>
          </div>
        ))}
        {sharesProfile ? <p className="text-sm text-slate-600">It will also see your name and email address.</p> : null}
      </fieldset>

      <section aria-labelledby="consent-tools-heading" aria-live="polite" className="space-y-2">
        <h2 id="consent-tools-heading" className="font-medium">
          {org ? `Tools it can call in ${org.name}` : 'Tools it can call'}
        </h2>
        {tools.length > 0 ? (
          <ul data-testid="consent-tools" className="list-disc pl-5 text-sm text-slate-700">
            {tools.map((tool) => (
              <li key={tool.name} data-tool={tool.name}>
                {tool.title} <span className="text-slate-500">({tool.name})</span>
              </li>
            ))}
          </ul>
        ) : (
          <p data-testid="consent-tools" className="text-sm text-slate-700">
            None: with these boxes and your role there, the app cannot call any tool.
          </p>
        )}
      </section>
    </>
  );
}
