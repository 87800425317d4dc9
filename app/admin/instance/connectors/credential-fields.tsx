'use client';
// The credential part of the connector forms (adding, replacing): none, header lines, or OAuth client
// credentials (docs/connectors.md, Client credentials). Secrets are typed into password-like fields and
// read once on submit; nothing ever fills them back in.
import { useState } from 'react';
import { inputClass, selectClass } from '../../components';

export type CredentialKindChoice = 'none' | 'headers' | 'client_credentials' | 'client_secret';

export type CredentialValue =
  | { kind: 'none' }
  | { kind: 'headers'; headers: string }
  | { kind: 'client_credentials'; tokenUrl: string; clientId: string; clientSecret: string; scope: string; resource: string; clientAuth: 'client_secret_basic' | 'client_secret_post' }
  | { kind: 'client_secret'; clientSecret: string };

const LABELS: Record<CredentialKindChoice, string> = {
  none: 'None',
  headers: 'Header lines',
  client_credentials: 'Client credentials',
  client_secret: 'Only a new client secret',
};

/** The credential as the form holds it, from its fields (named `<prefix>-…`). */
export function credentialFrom(data: FormData, prefix: string): CredentialValue {
  const field = (name: string) => String(data.get(`${prefix}-${name}`) ?? '');
  const kind = field('kind') as CredentialKindChoice;
  if (kind === 'headers') return { kind, headers: field('headers') };
  if (kind === 'client_secret') return { kind, clientSecret: field('client-secret') };
  if (kind === 'client_credentials') {
    return {
      kind,
      tokenUrl: field('token-url'),
      clientId: field('client-id'),
      clientSecret: field('client-secret'),
      scope: field('scope'),
      resource: field('resource'),
      clientAuth: field('client-auth') === 'client_secret_post' ? 'client_secret_post' : 'client_secret_basic',
    };
  }
  return { kind: 'none' };
}

export function CredentialFields({ prefix, kinds, legend }: { prefix: string; kinds: CredentialKindChoice[]; legend: string }) {
  const [kind, setKind] = useState<CredentialKindChoice>(kinds[0]!);
  const id = (name: string) => `${prefix}-${name}`;
  return (
    <fieldset className="space-y-3 rounded border border-slate-200 p-3">
      <legend className="px-1 text-sm font-medium">{legend}</legend>
      <div className="flex flex-wrap gap-x-4 gap-y-2">
        {kinds.map((choice) => (
          <label key={choice} className="flex items-center gap-2 text-sm">
            <input type="radio" name={id('kind')} value={choice} checked={kind === choice} onChange={() => setKind(choice)} />
            {LABELS[choice]}
          </label>
        ))}
      </div>
      {kind === 'headers' ? (
        <div className="space-y-1">
          <label htmlFor={id('headers')} className="block text-sm font-medium">
            Headers to send
          </label>
          <textarea id={id('headers')} name={id('headers')} rows={3} autoComplete="off" spellCheck={false} aria-describedby={id('headers-hint')} className={`${inputClass} font-mono`} />
          <p id={id('headers-hint')} className="text-sm text-slate-500">
            One “Name: value” a line, e.g. Authorization: Bearer …. Sealed when saved, never shown again.
          </p>
        </div>
      ) : null}
      {kind === 'client_credentials' ? (
        <div className="grid gap-3 sm:grid-cols-2">
          <Field id={id('token-url')} label="Token URL" type="url" />
          <Field id={id('client-id')} label="Client id" />
          <Field id={id('client-secret')} label="Client secret" type="password" />
          <Field id={id('scope')} label="Scope (optional)" />
          <Field id={id('resource')} label="Resource (optional)" />
          <div className="space-y-1">
            <label htmlFor={id('client-auth')} className="block text-sm font-medium">
              Client authentication
            </label>
            <select id={id('client-auth')} name={id('client-auth')} className={`${selectClass} w-full`} defaultValue="client_secret_basic">
              <option value="client_secret_basic">HTTP Basic (client_secret_basic)</option>
              <option value="client_secret_post">In the form body (client_secret_post)</option>
            </select>
          </div>
        </div>
      ) : null}
      {kind === 'client_secret' ? <Field id={id('client-secret')} label="New client secret" type="password" /> : null}
    </fieldset>
  );
}

function Field({ id, label, type = 'text' }: { id: string; label: string; type?: string }) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <input id={id} name={id} type={type} autoComplete={type === 'password' ? 'new-password' : 'off'} className={inputClass} />
    </div>
  );
}
