/**
 * Entry point of `npm start`. For now it reports the version and runs the cryptographic self-check.
 */
import './polyfills.mjs';
import { runSelfCheck } from './selfcheck.ts';
import { API_VERSION, IMPLEMENTATION } from './version.ts';

const results = runSelfCheck();
const failed = results.filter((r) => !r.ok);
console.log(`${IMPLEMENTATION} implementing Logos node API ${API_VERSION}`);
for (const r of results) console.log(`self-check ${r.name}: ${r.ok ? 'ok' : 'FAILED'}`);
if (failed.length > 0) {
  console.error(`self-check failed: ${failed.map((r) => r.name).join(', ')}`);
  process.exitCode = 1;
}
