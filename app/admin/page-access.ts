// Page-side use of the console's access checks: signed-out people go to sign-in, people without the
// permission get a 404 (the page does not say whether the org exists).
import { notFound, redirect } from 'next/navigation';
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

export function instancePage(page: string): Promise<InstanceAdmin> {
  return onPage(`/admin/instance${page}`, requireInstanceAdmin);
}
