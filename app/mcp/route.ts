import { handleMcpRequest } from '@/lib/mcp/endpoint';

export const dynamic = 'force-dynamic';

// Every method comes here: anything but POST (and the CORS preflight) is answered 405 with Allow: POST.
export { handleMcpRequest as GET, handleMcpRequest as POST, handleMcpRequest as PUT, handleMcpRequest as DELETE };
export { handleMcpRequest as PATCH, handleMcpRequest as OPTIONS, handleMcpRequest as HEAD };
