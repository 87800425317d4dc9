// Page-side use of the console's access checks: signed-out people go to sign-in, people without the
// permission get a 404 (the page does not say whether the org exists).
import { headers } from 'next/headers';
import { notFound, redirect } from 'next/navigation';
import { REQUEST_PATH_HEADER } from '@/proxy';
import { orgAdmin, requireInstanceAdmin, requireOrgPermission, type InstanceAdmin, type OrgAdmin } from '@/lib/admin/access';
import { ConsoleError } from '@/lib/admin/errors';
import type { Permission } from '@/lib/auth/permissions';

async function onPage<T>(path: string, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof ConsoleError && error.kind === 'signed_out') redirect(`/login?callbackUrl=${encodeURIComponent(path)}`);
    if (error instanceof ConsoleError) notFound();
    throw error;
  }
}

/** The admin of `orgSlug` for a page of the org's console; `permission` when the page needs one. */
export function orgPage(orgSlug: string, page: string, permission?: Permission): Promise<OrgAdmin> {
  const path = `/admin/${encodeURIComponent(orgSlug)}${page}`;
  return onPage(path, () => (permission ? requireOrgPermission(orgSlug, permission) : orgAdmin(orgSlug)));
}

/**
 * For a console layout, which renders before its page and outside the page's loading boundary, so that
 * a redirect to sign-in or a 404 keeps its real HTTP status. The way back after sign-in is the path the
 * proxy recorded (a layout cannot see the URL).
 */
export async function orgLayout(orgSlug: string, permissionFor: (path: string) => Permission | undefined): Promise<OrgAdmin> {
  const path = await requestedPath(`/admin/${encodeURIComponent(orgSlug)}`);
  const permission = permissionFor(path);
  return onPage(path, () => (permission ? requireOrgPermission(orgSlug, permission) : orgAdmin(orgSlug)));
}

export async function instanceLayout(): Promise<InstanceAdmin> {
  return onPage(await requestedPath('/admin/instance'), requireInstanceAdmin);
}

async function requestedPath(fallback: string): Promise<string> {
  const path = (await headers()).get(REQUEST_PATH_HEADER);
  return path?.startsWith('/admin/') ? path : fallback;
}

export function instancePage(page: string): Promise<InstanceAdmin> {
  return onPage(`/admin/instance${page}`, requireInstanceAdmin);
}
