// Calling a server action directly, as an attacker would: no page, any arguments. A server action is a
// POST to any page of the app with a `Next-Action` header naming it; its id comes from the build's
// manifest (file + exported name → id), so tests name actions by their source.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildLayout } from '@/lib/cli/standalone';
import { TEST_DIST_DIR } from './paths';
import type { CookieJar } from './session';

type Manifest = { node: Record<string, { filename: string; exportedName: string }> };

const manifests = new Map<string, Manifest>();

/** The id of a server action in the build in `distDir` (the test build unless told). */
export function serverActionId(filename: string, exportedName: string, distDir = TEST_DIST_DIR): string {
  let manifest = manifests.get(distDir);
  if (!manifest) {
    manifest = JSON.parse(readFileSync(join(buildLayout(distDir).distDir, 'server', 'server-reference-manifest.json'), 'utf8')) as Manifest;
    manifests.set(distDir, manifest);
  }
  const found = Object.entries(manifest.node).find(([, entry]) => entry.filename === filename && entry.exportedName === exportedName);
  if (!found) throw new Error(`no server action ${exportedName} in ${filename} (is it used by a page?)`);
  return found[0];
}

export type ActionCall = { status: number; body: string; result: unknown };

/** A form's fields as the FormData a `<form action>` sends. */
export function formData(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

/**
 * POSTs a server action with `args` on `pagePath` — JSON text, as React sends plain values, or multipart
 * when an argument is a FormData (React's reply encoding: the argument becomes `$K<n in hex>`, its
 * fields `_<n>_<name>`), as a `<form action>` with `useActionState` sends it — with the
 * jar's cookies (null: signed out), from `origin` (a page of another site, for CSRF tests). `result` is the action's return value when it returned one.
 */
export async function callServerAction(
  baseUrl: string,
  jar: CookieJar | null,
  action: { file: string; name: string; distDir?: string },
  args: unknown[],
  pagePath = '/',
  origin = baseUrl,
): Promise<ActionCall> {
  const forms = args.filter((arg): arg is FormData => arg instanceof FormData);
  const headers: Record<string, string> = { 'next-action': serverActionId(action.file, action.name, action.distDir), accept: 'text/x-component', origin };
  let body: string | FormData;
  if (forms.length === 0) {
    headers['content-type'] = 'text/plain;charset=UTF-8';
    body = JSON.stringify(args);
  } else {
    body = new FormData();
    // A top-level string starting with `$` is escaped as React does (`$$`); nested values are sent as given.
    const encoded = args.map((arg) => (arg instanceof FormData ? `$K${(forms.indexOf(arg) + 1).toString(16)}` : typeof arg === 'string' && arg.startsWith('$') ? `$${arg}` : (arg ?? null)));
    // In React's order: the forms' fields first, the root part last.
    forms.forEach((form, index) => {
      for (const [name, value] of form.entries()) (body as FormData).append(`_${index + 1}_${name}`, value);
    });
    body.append('0', JSON.stringify(encoded));
  }
  const init = { method: 'POST', headers, body, redirect: 'manual' as const };
  const response = jar ? await jar.fetch(`${baseUrl}${pagePath}`, init) : await fetch(`${baseUrl}${pagePath}`, init);
  const answer = await response.text();
  return { status: response.status, body: answer, result: actionResult(answer) };
}

/** The action's return value from the React Server Components payload (row "1:" holds it). */
function actionResult(body: string): unknown {
  for (const line of body.split('\n')) {
    const match = /^1:(.*)$/.exec(line);
    if (match) {
      try {
        return JSON.parse(match[1]!);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
