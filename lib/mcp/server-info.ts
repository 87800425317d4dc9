// How Gatehouse introduces itself to MCP clients.
import packageJson from '@/package.json' with { type: 'json' };

export const SERVER_INFO = { name: 'gatehouse', title: 'Gatehouse', version: packageJson.version };

export const SERVER_INSTRUCTIONS =
  'Gatehouse acts for one person in one organization, with the permissions they approved. ' + 'Call whoami to see who that is. Tool refusals explain whether reconnecting the app would help.';
