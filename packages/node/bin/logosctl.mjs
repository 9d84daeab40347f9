#!/usr/bin/env node
/**
 * The `logosctl` command: registers tsx (TypeScript) and loads the node's polyfills first, as
 * `npm start` does, then runs the control tool's command line (src/operator/ctl/main.ts).
 */
import { register } from 'tsx/esm/api';

register();
await import('../src/polyfills.mjs');
await import('../src/operator/ctl/main.ts');
