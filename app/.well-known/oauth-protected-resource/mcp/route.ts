import { protectedResourceResponse } from '@/lib/oauth/discovery';
import { corsPreflight } from '@/lib/oauth/endpoints/responses';

export const dynamic = 'force-dynamic';

export const GET = protectedResourceResponse;
export const OPTIONS = () => corsPreflight('GET');
