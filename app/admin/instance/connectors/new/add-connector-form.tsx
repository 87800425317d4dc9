'use client';

import { useRef, useState } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { FormAlert } from '@/app/components/form-alert';
import { useConsoleAction } from '@/app/components/use-console-action';
import type { TestedTool } from '@/lib/connectors/catalog';
import type { DefinitionProblem } from '@/lib/connectors/definitions';
import { Badge, inputClass } from '../../../components';
import { addConnectorAction, testConnectionAction } from '../actions';
import { CredentialFields, credentialFrom } from '../credential-fields';

type Tested = { tools: TestedTool[]; problems: DefinitionProblem[] };

/** Slug, URL, name, description, timeout and credential; Test connection reads the catalog and stores nothing. */
export function AddConnectorForm() {
  const form = useRef<HTMLFormElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [tested, setTested] = useState<Tested | null>(null);
  const { pending, run } = useConsoleAction();

  function input() {
    const data = new FormData(form.current!);
    const field = (name: string) => String(data.get(name) ?? '');
    return {
      slug: field('slug').trim(),
      url: field('url'),
      name: field('name'),
      description: field('description'),
      timeoutSeconds: Number(field('timeoutSeconds') || '30'),
      credential: credentialFrom(data, 'credential') as Parameters<typeof testConnectionAction>[0]['credential'],
    };
  }

  function test() {
    const values = input();
    run(() => testConnectionAction(values), {
      refused: (message) => {
        setTested(null);
        setError(message);
      },
      done: (found) => {
        setError(null);
        setTested(found);
        return null;
      },
      // Nothing was stored: the page has nothing new to read.
      next: 'stay',
    });
  }

  function add() {
    const values = input();
    run(() => addConnectorAction(values), {
      refused: setError,
      done: (added) => {
        setError(null);
        return `${values.name || values.slug} was added with ${added.tools} tools.`;
      },
      next: (added) => ({ push: `/admin/instance/connectors/${added.slug}` }),
    });
  }

  return (
    <form
      ref={form}
      onSubmit={(event) => {
        event.preventDefault();
        add();
      }}
      className="max-w-3xl space-y-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
      aria-label="New connector"
    >
      <div className="grid gap-3 sm:grid-cols-2">
        <div className="space-y-1">
          <label htmlFor="connector-slug" className="block text-sm font-medium">
            Slug
          </label>
          <input id="connector-slug" name="slug" required maxLength={32} aria-describedby="connector-slug-hint" className={inputClass} />
          <p id="connector-slug-hint" className="text-sm text-slate-500">
            1 to 32 of a–z, 0–9 and -. Its tools are named slug__tool; it cannot be changed later.
          </p>
        </div>
        <div className="space-y-1">
          <label htmlFor="connector-name" className="block text-sm font-medium">
            Name <span className="font-normal text-slate-500">(optional)</span>
          </label>
          <input id="connector-name" name="name" maxLength={100} className={inputClass} />
        </div>
        <div className="space-y-1 sm:col-span-2">
          <label htmlFor="connector-url" className="block text-sm font-medium">
            URL
          </label>
          <input id="connector-url" name="url" type="url" required maxLength={2048} className={inputClass} />
        </div>
        <div className="space-y-1 sm:col-span-2">
          <label htmlFor="connector-description" className="block text-sm font-medium">
            Description <span className="font-normal text-slate-500">(optional)</span>
          </label>
          <textarea id="connector-description" name="description" rows={2} maxLength={1000} className={inputClass} />
        </div>
        <div className="space-y-1">
          <label htmlFor="connector-timeout" className="block text-sm font-medium">
            Timeout (seconds)
          </label>
          <input id="connector-timeout" name="timeoutSeconds" type="number" min={1} max={300} defaultValue={30} className={inputClass} />
        </div>
      </div>
      <CredentialFields prefix="credential" kinds={['none', 'headers', 'client_credentials']} legend="Credential Gatehouse sends" />
      <FormAlert message={error} id="add-connector-error" />
      {tested ? <TestedCatalog tested={tested} /> : null}
      <div className="flex flex-wrap gap-3">
        <button type="button" onClick={test} disabled={pending} className={buttonClass('secondary')}>
          {pending ? 'Working…' : 'Test connection'}
        </button>
        <button type="submit" disabled={pending} className={buttonClass('primary')}>
          Add connector
        </button>
      </div>
    </form>
  );
}

/** What the upstream offers, as text (it comes from a server Gatehouse does not control). */
function TestedCatalog({ tested }: { tested: Tested }) {
  return (
    <section aria-labelledby="tested-tools" aria-live="polite" className="space-y-2">
      <h2 id="tested-tools" className="text-base font-semibold">
        The connection works: {tested.tools.length === 1 ? '1 tool' : `${tested.tools.length} tools`} found
      </h2>
      {tested.tools.length ? (
        <ul className="divide-y divide-slate-200 rounded border border-slate-200" aria-label="Tools found">
          {tested.tools.map((tool) => (
            <li key={tool.name} className="space-y-1 px-3 py-2">
              <p className="text-sm font-medium break-words">
                {tool.title ?? tool.name} <code className="ml-1 text-xs font-normal break-all text-slate-500">{tool.name}</code> <Badge>{tool.scope}</Badge>
              </p>
              {tool.description ? <p className="line-clamp-3 text-sm break-words whitespace-pre-line text-slate-600">{tool.description}</p> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {tested.problems.length ? (
        <ul className="space-y-1 rounded bg-amber-50 px-3 py-2 text-sm text-amber-900" aria-label="Tools that cannot be offered">
          {tested.problems.map((problem, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: an upstream may list a bad name twice; the list is shown once, never reordered
            <li key={index} className="break-words">
              <code>{problem.name}</code>: {problem.problem}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
