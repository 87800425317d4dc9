// Whether cloud MCP clients can reach an installation (lib/connect/reachability.ts): only a public
// https:// PUBLIC_URL; and the note the "Connect an app" card and npm start show when they cannot.
import { describe, expect, it } from 'vitest';
import { connectClients, mcpUrl, reachNote } from '@/lib/connect/clients';
import { publicUrlReach } from '@/lib/connect/reachability';

describe('publicUrlReach', () => {
  it.each([
    'https://auth.example.com',
    'https://gatehouse.acme.io/',
    'https://auth.example.com:8443',
    'https://8.8.8.8',
    'https://172.32.0.1', // just outside 172.16.0.0/12
    'https://100.128.0.1', // just outside 100.64.0.0/10
    'https://[2606:4700:4700::1111]',
    'https://[::ffff:8.8.8.8]',
    'https://[64:ff9b::808:808]', // NAT64 of 8.8.8.8
  ])('%s is public', (url) => {
    expect(publicUrlReach(url)).toEqual({ public: true });
  });

  it.each(['http://auth.example.com', 'http://localhost:3000', 'http://8.8.8.8', 'ftp://auth.example.com'])('%s is not https', (url) => {
    expect(publicUrlReach(url)).toEqual({ public: false, reason: 'http' });
  });

  it.each([
    'https://localhost',
    'https://LOCALHOST.',
    'https://app.localhost',
    'https://gatehouse.local',
    'https://gatehouse.home.arpa',
    'https://gatehouse.internal',
    'https://gatehouse.lan',
    'https://gatehouse.test',
    'https://gatehouse.example',
    'https://gatehouse', // a single label: only a local search domain completes it
  ])('%s is a local name', (url) => {
    expect(publicUrlReach(url)).toEqual({ public: false, reason: 'local-name' });
  });

  it.each([
    // IPv4: loopback, RFC 1918, link-local, carrier-grade NAT, "this network", documentation, multicast, reserved
    'https://127.0.0.1',
    'https://127.8.9.10',
    'https://10.0.0.1',
    'https://10.255.255.255',
    'https://172.16.0.1',
    'https://172.31.255.254',
    'https://192.168.1.20',
    'https://169.254.169.254',
    'https://100.64.0.1',
    'https://0.0.0.0',
    'https://192.0.2.10',
    'https://198.51.100.7',
    'https://203.0.113.9',
    'https://198.18.0.1',
    'https://224.0.0.1',
    'https://255.255.255.255',
    // the same addresses as the URL parser reads other spellings of them
    'https://0x7f.1',
    'https://2130706433',
    'https://0300.0250.1.1',
    // IPv6: loopback, unspecified, unique local, link-local, site-local, multicast, documentation, discard
    'https://[::1]',
    'https://[::]',
    'https://[fc00::1]',
    'https://[fd12:3456:789a::1]',
    'https://[fe80::1]',
    'https://[febf::1]',
    'https://[fec0::1]',
    'https://[ff02::1]',
    'https://[2001:db8::1]',
    'https://[100::1]',
    // IPv4 addresses inside IPv6
    'https://[::ffff:127.0.0.1]',
    'https://[::ffff:10.1.2.3]',
    'https://[::ffff:c0a8:101]',
    'https://[64:ff9b::a00:1]',
  ])('%s is a loopback or private address', (url) => {
    expect(publicUrlReach(url)).toEqual({ public: false, reason: 'private-address' });
  });
});

describe('reachNote', () => {
  it('is null for a public https origin', () => {
    expect(reachNote('https://auth.example.com')).toBeNull();
  });

  it('names the cloud clients that cannot reach the installation and the device clients that still work', () => {
    const note = reachNote('http://localhost:3000');
    expect(note).toBe(
      "http://localhost:3000 is not an https:// address, so Claude and ChatGPT, which connect from their vendors' servers, cannot reach it. Claude Code, Cursor and VS Code run on your computer and work wherever it reaches this address.",
    );
    expect(reachNote('https://192.168.1.20')).toMatch(/^https:\/\/192\.168\.1\.20 is a loopback or private address, so Claude and ChatGPT/);
    expect(reachNote('https://gatehouse.local/')).toMatch(/^https:\/\/gatehouse\.local is a name only this computer or its network knows/);
  });
});

describe('the JSON lines', () => {
  it('stay valid JSON whatever the URL holds, and carry it exactly', () => {
    const url = mcpUrl('https://auth.example.com/a"b\\c');
    for (const client of connectClients(url).filter((entry) => entry.lineKind === 'json')) {
      const parsed = JSON.parse(client.line) as Record<string, Record<string, { url: string }>>;
      expect(Object.values(Object.values(parsed)[0]!)[0]!.url).toBe(url);
    }
  });
});
