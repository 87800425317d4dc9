// `npm run docs:readme`: rewrites README.md's generated sections (lib/docs/readme.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderReadme } from './readme';

const file = fileURLToPath(new URL('../../README.md', import.meta.url));
const before = readFileSync(file, 'utf8');
const after = renderReadme(before);
if (after === before) {
  console.log('README.md is up to date.');
} else {
  writeFileSync(file, after);
  console.log('README.md rewritten.');
}
