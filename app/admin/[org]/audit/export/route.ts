import { AUDIT_EXPORT_COLUMNS, auditExportBatches, parseAuditFilter } from '@/lib/admin/audit-log';
import { logExportRoute } from '@/lib/admin/log-export';

export const dynamic = 'force-dynamic';

/** GET ?format=csv|jsonl&…filter: every audit event of the org matching the filter, as a download. */
export const GET = logExportRoute({ name: 'audit', parseFilter: parseAuditFilter, batches: auditExportBatches, columns: AUDIT_EXPORT_COLUMNS });
