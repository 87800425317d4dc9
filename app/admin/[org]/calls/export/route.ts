import { CALL_EXPORT_COLUMNS, callExportBatches, parseCallFilter } from '@/lib/audit/call-log-read';
import { logExportRoute } from '@/lib/admin/log-export';

export const dynamic = 'force-dynamic';

/** GET ?format=csv|jsonl&…filter: every /mcp call of the org matching the filter, as a download. */
export const GET = logExportRoute({ name: 'calls', parseFilter: parseCallFilter, batches: callExportBatches, columns: CALL_EXPORT_COLUMNS });
