// The fields of the log pages' filter forms (audit log, call log): labelled inputs and menus, the date
// range, and the line that says why a filter was refused.
import type { ReactNode } from 'react';
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
