import { handleOAuthRequest } from '@/lib/oauth/handle-request';

export const dynamic = 'force-dynamic';

export { handleOAuthRequest as GET, handleOAuthRequest as POST, handleOAuthRequest as PUT };
export { handleOAuthRequest as DELETE, handleOAuthRequest as OPTIONS };
