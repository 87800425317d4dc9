'use client';
// The connector's fields and its credential. A new URL is another server: its catalog is read first and
// every tool is held for review (docs/connectors.md, The catalog and pinned definitions).
import { useRef, useState } from 'react';
import { buttonClass } from '@/app/components/confirm-dialog';
import { FormAlert } from '@/app/components/form-alert';
import { useConsoleAction } from '@/app/components/use-console-action';
import { inputClass } from '../../../components';
import { replaceCredentialAction, updateConnectorAction } from '../actions';
import { CredentialFields, credentialFrom } from '../credential-fields';
import { Section } from './section';

type Editable = { slug: string; name: string; description: string; url: string; timeoutSeconds: number };

export function EditConnectorForm({ connector }: { connector: Editable }) {
  const [error, setError] = useState<string | null>(null);
  const { pending, run } = useConsoleAction();

  function save(form: HTMLFormElement) {
    const data = new FormData(form);
    const field = (name: string) => String(data.get(name) ?? '');
    const input = { slug: connector.slug, name: field('name'), description: field('description'), url: field('url'), timeoutSeconds: Number(field('timeoutSeconds')) };
    run(() => updateConnectorAction(input), {
      refused: setError,
      done: ({ changed, held, removed }) => {
        setError(null);
        if (!changed.length) return 'Nothing to change.';
        if (changed.includes('url')) return `New URL saved: ${held.length} tools held for review${removed.length ? `, ${removed.length} removed` : ''}.`;
        return 'Saved.';
      },
    });
  }

  return (
    <Section id="connector-fields" title="Settings">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save(event.currentTarget);
        }}
        className="grid gap-3 sm:grid-cols-2"
        aria-label="Connector settings"
      >
        <div className="space-y-1">
          <label htmlFor="edit-name" className="block text-sm font-medium">
            Name
          </label>
          <input id="edit-name" name="name" required maxLength={100} defaultValue={connector.name} className={inputClass} />
        </div>
        <div className="space-y-1">
          <label htmlFor="edit-timeout" className="block text-sm font-medium">
            Timeout (seconds)
          </label>
          <input id="edit-timeout" name="timeoutSeconds" type="number" min={1} max={300} defaultValue={connector.timeoutSeconds} className={inputClass} />
        </div>
        <div className="space-y-1 sm:col-span-2">
          <label htmlFor="edit-url" className="block text-sm font-medium">
            URL
          </label>
          <input id="edit-url" name="url" type="url" required maxLength={2048} defaultValue={connector.url} aria-describedby="edit-url-hint" className={inputClass} />
          <p id="edit-url-hint" className="text-sm text-slate-500">
            A new URL is read first; then every tool it serves is held for review until approved again, even one that looks the same.
          </p>
        </div>
        <div className="space-y-1 sm:col-span-2">
          <label htmlFor="edit-description" className="block text-sm font-medium">
            Description
          </label>
          <textarea id="edit-description" name="description" rows={2} maxLength={1000} defaultValue={connector.description} className={inputClass} />
        </div>
        <div className="space-y-3 sm:col-span-2">
          <FormAlert message={error} id="edit-connector-error" />
          <button type="submit" disabled={pending} className={buttonClass('primary')}>
            {pending ? 'Saving…' : 'Save settings'}
          </button>
        </div>
      </form>
    </Section>
  );
}

type Current = { kind: 'headers' | 'client_credentials' | 'none'; headerNames: string[]; clientId: string | null; tokenUrl: string | null };

export function CredentialForm({ slug, current }: { slug: string; current: Current }) {
  const form = useRef<HTMLFormElement>(null);
  const [error, setError] = useState<string | null>(null);
  const { pending, run } = useConsoleAction();

  function replace() {
    const credential = credentialFrom(new FormData(form.current!), 'rotate');
    run(() => replaceCredentialAction({ slug, credential }), {
      refused: setError,
      done: () => {
        setError(null);
        form.current?.reset();
        return 'The new credential works and is saved.';
      },
    });
  }

  return (
    <Section id="connector-credential" title="Credential">
      <p className="text-sm break-words text-slate-700">
        Now:{' '}
        {current.kind === 'headers'
          ? `header lines (${current.headerNames.join(', ')})`
          : current.kind === 'client_credentials'
            ? `client credentials, client id ${current.clientId} at ${current.tokenUrl}`
            : 'none'}
        . Values and secrets are never shown.
      </p>
      <form
        ref={form}
        onSubmit={(event) => {
          event.preventDefault();
          replace();
        }}
        className="space-y-3"
        aria-label="Replace the credential"
      >
        <CredentialFields
          prefix="rotate"
          kinds={current.kind === 'client_credentials' ? ['client_secret', 'client_credentials', 'headers', 'none'] : ['headers', 'client_credentials', 'none']}
          legend="New credential"
        />
        <FormAlert message={error} id="credential-error" />
        <button type="submit" disabled={pending} className={buttonClass('primary')}>
          {pending ? 'Checking…' : 'Replace the credential'}
        </button>
        <p className="text-sm text-slate-500">The tools are read with the new credential first: if that fails, the current one is kept.</p>
      </form>
    </Section>
  );
}
