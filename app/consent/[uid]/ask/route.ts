import { askForAccess } from '@/lib/oauth/consent';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ uid: string }> }) {
  return askForAccess(request, (await params).uid);
}
