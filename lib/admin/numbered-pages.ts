// The instance console's directories (people, clients) page by number: a search narrows them, and a page
// past the last shows the last one. One place for the arithmetic, and for the search condition.

export type NumberedPage<Row> = { rows: Row[]; total: number; page: number; pages: number };

/** Where a requested page falls among `total` rows: the page shown, how many there are, the rows to skip. */
export function pageAmong(total: number, requested: number, perPage: number): { page: number; pages: number; skip: number; take: number } {
  const pages = Math.max(1, Math.ceil(total / perPage));
  const page = Math.min(Math.max(1, Math.floor(requested) || 1), pages);
  return { page, pages, skip: (page - 1) * perPage, take: perPage };
}

/** A case-insensitive "contains" over any of `fields`, or no condition for an empty search. */
export function searchAny<Field extends string>(query: string, fields: readonly Field[]): { OR: Record<Field, { contains: string; mode: 'insensitive' }>[] } | Record<string, never> {
  const text = query.trim();
  if (!text) return {};
  return { OR: fields.map((field) => ({ [field]: { contains: text, mode: 'insensitive' } }) as Record<Field, { contains: string; mode: 'insensitive' }>) };
}
