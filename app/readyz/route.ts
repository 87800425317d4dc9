import { databaseReachable } from '@/lib/db/health';

export const dynamic = 'force-dynamic';

// Readiness: 200 only while the database answers, so a load balancer stops sending traffic otherwise.
export async function GET() {
  const database = await databaseReachable();
  return Response.json({ status: database.ok ? 'ready' : 'unavailable', database: database.ok ? 'ok' : database.error }, { status: database.ok ? 200 : 503, headers: { 'Cache-Control': 'no-store' } });
}
