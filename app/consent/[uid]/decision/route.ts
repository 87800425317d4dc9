import { decideConsent } from '@/lib/oauth/consent';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ uid: string }> }) {
  return decideConsent(request, (await params).uid);
}
