// The org console's sections and the permission each needs: one table for the navigation and for the
// layout's gate (which answers 404 with a real status before any page streams).
import type { Permission } from '@/lib/auth/permissions';

export type Section = { path: string; label: string; permission: Permission };

export const SECTIONS: readonly Section[] = [
  { path: '', label: 'Overview', permission: 'audit:read' },
  { path: '/connected-apps', label: 'Connected apps', permission: 'apps:manage' },
  { path: '/clients', label: 'Clients', permission: 'apps:manage' },
  { path: '/members', label: 'Members', permission: 'members:manage' },
  // Connectors and Tools both decide what the org's apps can call: the same permission.
  { path: '/connectors', label: 'Connectors', permission: 'apps:manage' },
  { path: '/tools', label: 'Tools', permission: 'apps:manage' },
  { path: '/plan', label: 'Plan', permission: 'plan:manage' },
  { path: '/audit', label: 'Audit log', permission: 'audit:read' },
  { path: '/calls', label: 'Call log', permission: 'audit:read' },
];

/** The section a console path belongs to (`/admin/acme/audit/42` → Audit log); undefined for unknown paths. */
export function sectionOf(pathname: string, orgSlug: string): Section | undefined {
  const base = `/admin/${orgSlug}`;
  if (!pathname.startsWith(base)) return undefined;
  const rest = pathname.slice(base.length).split('?')[0]!;
  if (rest === '' || rest === '/') return SECTIONS[0];
  return SECTIONS.find((section) => section.path !== '' && (rest === section.path || rest.startsWith(`${section.path}/`)));
}
