/** Fast test variants of the devnet deployment (short slots, small k, the insecure proofs allowed). */
import { readFileSync } from 'node:fs';
import { type Deployment, parseDeployment } from '../src/ledger/deployment.ts';

const DEVNET_YAML = readFileSync(new URL('../deployments/devnet.yaml', import.meta.url), 'utf8');

export function fastDeploymentYaml(slotMs: number, k: number): string {
  return DEVNET_YAML.replace('name: devnet', 'name: fast-test')
    .replace('test: false', 'test: true')
    .replace('slot_duration_ms: 2000', `slot_duration_ms: ${slotMs}`)
    .replace('security_param: 10', `security_param: ${k}`);
}

/** 100 ms slots, k = 2 (40-slot epochs). */
export const FAST: Deployment = parseDeployment(fastDeploymentYaml(100, 2), 'fast-test');
