import { AUDIT_EXPORT_COLUMNS, auditExportBatches } from '@/lib/audit/export';
import { parseAuditFilter } from '@/lib/audit/filter';
import { logExportRoute } from '@/lib/admin/log-export';

export const dynamic = 'force-dynamic';

/** GET ?format=csv|jsonl&…filter: every audit event of the org matching the filter, as a download. */
export const GET = logExportRoute({ name: 'audit', parseFilter: parseAuditFilter, batches: auditExportBatches, columns: AUDIT_EXPORT_COLUMNS });
