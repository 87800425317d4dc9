// The refusals of connector changes (a bad URL, an unknown slug, a header Gatehouse sets itself), in words
// for the admin. The command line prints them; the console shows them (lib/admin/errors.ts maps them).

/** A refusal of a connector change, in words for the admin. */
export class ConnectorError extends Error {}

/** Text from an admin, safe to echo in a refusal: printable ASCII only. */
export function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}
