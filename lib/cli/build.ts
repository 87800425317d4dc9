// `npm run build`: the production build (standalone server, its static assets, the bundled tools).
import { buildApp } from './standalone';

buildApp();
