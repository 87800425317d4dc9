// docker-compose.yml's `replicas` profile is the documented shape of a load-balanced installation
// (docs/operations.md, "Several instances"): two instances sharing everything that must be shared, reachable
// only through a reverse proxy whose configuration sends to both and forwards what Gatehouse reads.
// Docker cannot run here, so the file is checked as Compose would read it (YAML anchors and merges
// resolved) and the proxy configuration as nginx would.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../lib/cli/standalone';

type Service = {
  profiles?: string[];
  build?: unknown;
  image?: string;
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
};

const compose = parse(readFileSync(join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const inProfile = Object.entries(services).filter(([, service]) => service.profiles?.includes('replicas'));
const instances = inProfile.filter(([, service]) => service.build !== undefined);
const [proxyName, proxy] = inProfile.find(([, service]) => service.image?.startsWith('nginx'))!;
const SHARED = ['DATABASE_URL', 'REDIS_URL', 'AUTH_SECRET', 'PUBLIC_URL'] as const;

/** nginx.conf as directives (comments dropped), each `name args…`, with the block they sit in. */
function directives(text: string): { block: string; name: string; args: string[] }[] {
  const result: { block: string; name: string; args: string[] }[] = [];
  const blocks: string[] = [];
  const source = text.replace(/#.*$/gm, '');
  for (const match of source.matchAll(/([^;{}]+)([;{])|}/g)) {
    if (match[0] === '}') {
      blocks.pop();
      continue;
    }
    const [name, ...args] = match[1]!.trim().split(/\s+/);
    if (match[2] === '{') blocks.push(`${name} ${args.join(' ')}`.trim());
    else result.push({ block: blocks.join(' > '), name: name!, args });
  }
  return result;
}

describe('docker-compose.yml, profile replicas', () => {
  it('runs two Gatehouse instances built from the same image, started only with the profile', () => {
    expect(instances.map(([name]) => name)).toHaveLength(2);
    for (const [, instance] of instances) {
      expect(instance.build).toEqual(services.app!.build);
      expect(instance.healthcheck?.test).toEqual(services.app!.healthcheck?.test);
      expect(instance.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    }
    // The single-instance setup is untouched: `docker compose up` still starts app alone.
    expect(services.app!.profiles).toBeUndefined();
  });

  it('gives both instances the same database, Redis, secret and public URL, and only the proxy a port', () => {
    const [a, b] = instances.map(([, instance]) => instance.environment!);
    for (const name of SHARED) {
      expect(a![name], name).toBeTruthy();
      expect(a![name], name).toBe(b![name]);
    }
    expect(a!.DATABASE_URL).toBe(services.app!.environment!.DATABASE_URL);
    expect(a!.REDIS_URL).toBe(services.app!.environment!.REDIS_URL);
    expect(a!.AUTH_SECRET).toBe(services.app!.environment!.AUTH_SECRET);
    // Reachable only through the proxy, so its X-Forwarded-For is the one to believe.
    for (const [, instance] of instances) {
      expect(String(instance.environment!.TRUST_PROXY)).toBe('true');
      expect(instance.ports).toBeUndefined();
    }
    // By default the public URL is the proxy's published address.
    const publicUrl = /^\$\{PUBLIC_URL:-(.+)\}$/.exec(String(a!.PUBLIC_URL))?.[1];
    const proxyPort = /^\$\{GATEHOUSE_PROXY_PORT:-(\d+)\}:\d+$/.exec(proxy.ports![0]!)?.[1];
    expect(new URL(publicUrl!).port).toBe(proxyPort);
  });

  it('starts the proxy after both instances are healthy, with the configuration committed in the repository', () => {
    expect(Object.keys(proxy.depends_on!).sort()).toEqual(instances.map(([name]) => name).sort());
    for (const dependency of Object.values(proxy.depends_on!)) expect(dependency.condition).toBe('service_healthy');
    expect(proxyName).toBe('proxy');
    const mount = proxy.volumes!.find((volume) => volume.endsWith(':/etc/nginx/nginx.conf:ro'));
    expect(mount).toBe('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
  });
});

describe('deploy/nginx.conf', () => {
  const config = directives(readFileSync(join(PROJECT_ROOT, 'deploy/nginx.conf'), 'utf8'));
  const find = (name: string, block?: RegExp) => config.filter((each) => each.name === name && (!block || block.test(each.block)));

  it('sends to both instances on the port they listen on', () => {
    const upstreams = find('server', /^http > upstream gatehouse$/).map((each) => each.args[0]);
    const port = String(instances[0]![1].environment!.PORT);
    expect(upstreams.sort()).toEqual(instances.map(([name]) => `${name}:${port}`).sort());
    expect(find('proxy_pass', /location \/$/).map((each) => each.args)).toEqual([['http://gatehouse']]);
  });

  it('listens on the port Compose publishes', () => {
    const target = /:(\d+)$/.exec(proxy.ports![0]!)?.[1];
    expect(find('listen', /^http > server$/).map((each) => each.args[0])).toEqual([target]);
  });

  it('forwards the client address as the last hop, and the Host the browser used', () => {
    const headers = Object.fromEntries(find('proxy_set_header', /location \/$/).map((each) => [each.args[0]!.toLowerCase(), each.args.slice(1).join(' ')]));
    expect(headers['x-forwarded-for']).toBe('$proxy_add_x_forwarded_for');
    expect(headers['x-forwarded-proto']).toBe('$scheme');
    expect(headers.host).toBe('$http_host');
  });

  it('lets /mcp bodies of 1 MiB through, and never replays a request an instance received', () => {
    const [size] = find('client_max_body_size').map((each) => each.args[0]!);
    const bytes = Number(/^(\d+)([km]?)$/i.exec(size!)![1]) * ({ '': 1, k: 1024, m: 1024 * 1024 } as Record<string, number>)[/[km]?$/i.exec(size!)![0].toLowerCase()]!;
    expect(bytes).toBeGreaterThan(1024 * 1024);
    for (const each of find('proxy_next_upstream')) expect(each.args).not.toContain('non_idempotent');
  });
});
