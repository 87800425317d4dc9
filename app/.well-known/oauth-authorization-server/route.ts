import { handleOAuthRequest } from '@/lib/oauth/handle-request';

export const dynamic = 'force-dynamic';

export { handleOAuthRequest as GET, handleOAuthRequest as OPTIONS };
