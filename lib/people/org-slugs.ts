// Organization addresses: an org's console lives at /admin/<slug>. Words the console uses for its own
// pages (/admin/instance) can never be an org's address, or that org's console would be unreachable.
export const RESERVED_ORG_SLUGS: ReadonlySet<string> = new Set(['instance']);

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Why `slug` cannot be an organization's address, in words for a person; null when it can. */
export function orgSlugProblem(slug: string): string | null {
  if (!SLUG.test(slug)) {
    return `The address "${slug}" is not valid: use lower-case letters, digits and hyphens (at most 63), starting with a letter or digit.`;
  }
  if (RESERVED_ORG_SLUGS.has(slug)) return `The address "${slug}" is reserved for Gatehouse's own pages (/admin/${slug}).`;
  return null;
}

export class OrgSlugError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OrgSlugError';
  }
}

export function assertOrgSlug(slug: string): void {
  const problem = orgSlugProblem(slug);
  if (problem) throw new OrgSlugError(problem);
}
