// Downloads of a log as CSV (RFC 4180) or JSON Lines, streamed batch by batch: an export of a large table
// never sits in memory, and a download the browser abandons stops the reading.
import { requireOrgPermission } from './access';
import { consoleErrorResponse, invalid } from './errors';

export type ExportFormat = 'csv' | 'jsonl';

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8; header=present',
  jsonl: 'application/jsonl; charset=utf-8',
};

export function parseExportFormat(value: string | null): ExportFormat {
  if (value === 'csv' || value === 'jsonl') return value;
  throw invalid('Choose the export format: format=csv or format=jsonl.');
}

/** `acme-audit-2026-11-30.csv` */
export function exportFilename(orgSlug: string, log: 'audit' | 'calls', format: ExportFormat, now = new Date()): string {
  return `${orgSlug}-${log}-${now.toISOString().slice(0, 10)}.${format}`;
}

// Spreadsheets run a cell that starts with one of these as a formula (OWASP "CSV injection"); a leading
// apostrophe makes it text. Tab and carriage return are in OWASP's list too.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field: formula-guarded, quoted when it holds a comma, quote or line break (RFC 4180 §2). */
export function csvField(value: unknown): string {
  let text = value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record, CRLF-terminated (RFC 4180 §2). */
export function csvRecord(values: unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/** One JSON Lines record: a JSON object on one line (JSON.stringify escapes line breaks in strings). */
export function jsonLine(row: Record<string, unknown>): string {
  return `${JSON.stringify(row)}\n`;
}

export type ExportOptions<T extends Record<string, unknown>> = {
  batches: AsyncGenerator<T[]>;
  /** CSV columns, in order; JSON Lines records carry the same keys. */
  columns: readonly (keyof T & string)[];
  format: ExportFormat;
  filename: string;
};

export function exportResponse<T extends Record<string, unknown>>({ batches, columns, format, filename }: ExportOptions<T>): Response {
  const encoder = new TextEncoder();
  let headerSent = false;
  const body = new ReadableStream<Uint8Array>({
    // Pulled one batch at a time, only as fast as the client reads.
    async pull(controller) {
      try {
        let text = '';
        if (format === 'csv' && !headerSent) text += csvRecord([...columns]);
        headerSent = true;
        const next = await batches.next();
        if (!next.done) {
          for (const row of next.value) text += format === 'csv' ? csvRecord(columns.map((column) => row[column])) : jsonLine(pick(row, columns));
        }
        if (text) controller.enqueue(encoder.encode(text));
        if (next.done) controller.close();
      } catch (error) {
        console.error('log export failed', error);
        controller.error(error);
      }
    },
    async cancel() {
      await batches.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      'Content-Type': CONTENT_TYPES[format],
      'Content-Disposition': `attachment; filename="${filename}"`,
      'Cache-Control': 'no-store',
    },
  });
}

function pick<T extends Record<string, unknown>>(row: T, columns: readonly (keyof T & string)[]): Record<string, unknown> {
  return Object.fromEntries(columns.map((column) => [column, row[column] ?? null]));
}

/** What an export route needs to know about one log. */
export type LogExport<F, T extends Record<string, unknown>> = {
  name: 'audit' | 'calls';
  parseFilter: (search: URLSearchParams) => F;
  batches: (orgId: string, filter: F) => AsyncGenerator<T[]>;
  columns: readonly (keyof T & string)[];
};

/**
 * The GET handler of `/admin/<org>/<log>/export?format=csv|jsonl&…filter`: every row of the org matching
 * the filter, as a download, for people with `audit:read` there (401/403 otherwise, 400 for a bad filter).
 */
export function logExportRoute<F, T extends Record<string, unknown>>(log: LogExport<F, T>) {
  return async function exportLog(request: Request, { params }: { params: Promise<{ org: string }> }): Promise<Response> {
    try {
      const admin = await requireOrgPermission((await params).org, 'audit:read');
      const search = new URL(request.url).searchParams;
      const format = parseExportFormat(search.get('format'));
      return exportResponse({
        batches: log.batches(admin.org.id, log.parseFilter(search)),
        columns: log.columns,
        format,
        filename: exportFilename(admin.org.slug, log.name, format),
      });
    } catch (error) {
      return consoleErrorResponse(error);
    }
  };
}
