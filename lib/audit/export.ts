// The audit log as a download (the console's /admin/<org>/audit/export): every event matching the
// filter, all pages, newest first, a batch at a time (log-export.ts streams them as CSV or JSON Lines).
import { batchesByKeyset } from './log-filter';
import { db } from '@/lib/db/client';
import { auditWhere, type AuditQuery } from './filter';
import { withNames, type AuditRow } from './read';

export const AUDIT_EXPORT_COLUMNS = ['id', 'at', 'type', 'actorPersonId', 'actorName', 'actorEmail', 'clientId', 'clientName', 'grantId', 'ip', 'data'] as const;

export type AuditExportRecord = Record<(typeof AUDIT_EXPORT_COLUMNS)[number], unknown>;

/** Every event matching the filter (all pages), newest first, in batches. */
export async function* auditExportBatches(orgId: string, filter: AuditQuery): AsyncGenerator<AuditExportRecord[]> {
  const batches = batchesByKeyset((ids, take) => db().auditEvent.findMany({ where: auditWhere(orgId, filter, ids), orderBy: { id: 'desc' }, take }));
  for await (const events of batches) yield (await withNames(events)).map(exportRecord);
}

function exportRecord(row: AuditRow): AuditExportRecord {
  return {
    id: row.id.toString(),
    at: row.at.toISOString(),
    type: row.type,
    actorPersonId: row.actor?.id ?? null,
    actorName: row.actor?.name ?? null,
    actorEmail: row.actor?.email ?? null,
    clientId: row.client?.id ?? null,
    clientName: row.client?.name ?? null,
    grantId: row.grantId,
    ip: row.ip,
    data: row.data,
  };
}
