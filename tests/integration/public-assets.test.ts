// The files in public/ reach a browser from the standalone build: the favicon every page links, and the
// logo the header shows (npm start and the Docker image serve the same standalone folder).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { startServer, type RunningServer } from '../helpers/server';

describe.each([DATABASES.at(-1)!])('public assets (%s database)', (database) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ database });
  });
  afterAll(async () => server?.stop());

  it('links the favicon and the logo from every page, and serves both as SVG', async () => {
    for (const path of ['/login', '/no-such-page']) {
      const html = await (await fetch(`${server.url}${path}`)).text();
      expect(html, path).toMatch(/<link rel="icon" href="\/favicon\.svg" type="image\/svg\+xml"/);
      expect(html, path).toContain('src="/logo.svg"');
    }
    for (const file of ['/favicon.svg', '/logo.svg']) {
      const response = await fetch(`${server.url}${file}`);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type') ?? '', file).toContain('image/svg+xml');
      expect(await response.text(), file).toMatch(/^<svg /);
    }
  });
});
