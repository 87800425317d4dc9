// The fields of the log pages' filter forms (audit log, call log): labelled inputs and menus, the date
// range, and the line that says why a filter was refused.
import type { ReactNode } from 'react';
import type { LogFacets } from '@/lib/audit/log-facets';
import { inputClass, selectClass } from '../components';

export function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children}
    </div>
  );
}

type Option = { value: string; label: string };

/** A menu of choices with "any" first; a value from the URL that is not among them stays selected. */
export function SelectField({ id, name, label, anyLabel, value, options }: { id: string; name: string; label: string; anyLabel: string; value: string; options: Option[] }) {
  const all = value && !options.some((option) => option.value === value) ? [...options, { value, label: value }] : options;
  return (
    <Field id={id} label={label}>
      <select id={id} name={name} defaultValue={value} className={selectClass}>
        <option value="">{anyLabel}</option>
        {all.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function DateFields({ from, to }: { from: string; to: string }) {
  return (
    <>
      <Field id="filter-from" label="From (UTC)">
        <input id="filter-from" name="from" type="date" defaultValue={from} className={inputClass} />
      </Field>
      <Field id="filter-to" label="To (UTC)">
        <input id="filter-to" name="to" type="date" defaultValue={to} className={inputClass} />
      </Field>
    </>
  );
}

export function FilterProblem({ message }: { message: string }) {
  return (
    <p role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
      {message}
    </p>
  );
}

/** The filters both logs have: who acted, with which app, and when. */
export function PersonAppAndDateFields({ facets, shown }: { facets: LogFacets; shown: { person?: string; client?: string; from?: string; to?: string } }) {
  return (
    <>
      <SelectField
        id="filter-person"
        name="person"
        label="Person"
        anyLabel="Everyone"
        value={shown.person ?? ''}
        options={facets.people.map((person) => ({ value: person.id, label: `${person.name} (${person.email})` }))}
      />
      <SelectField id="filter-client" name="client" label="App" anyLabel="Every app" value={shown.client ?? ''} options={facets.clients.map((client) => ({ value: client.id, label: client.name }))} />
      <DateFields from={shown.from ?? ''} to={shown.to ?? ''} />
    </>
  );
}
