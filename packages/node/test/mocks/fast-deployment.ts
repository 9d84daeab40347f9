/**
 * Fast test variants of the devnet deployment (short slots, small k, f = 1/2 so that blocks and
 * epochs come quickly, a PoW reward target of p / 2^8, the insecure proofs allowed). Their Blend
 * round is the whole (short) slot, as the reference's, at the devnet's cover traffic per slot.
 */
import { readFileSync } from 'node:fs';
import { type Deployment, parseDeployment } from '../../src/ledger/deployment.ts';

const DEVNET_YAML = readFileSync(new URL('../../deployments/devnet.yaml', import.meta.url), 'utf8');

/** The devnet with `slotMs` slots and security parameter `k`; genesis at the first start unless given (Unix seconds). */
export function fastDeploymentYaml(slotMs: number, k: number, genesisTimeS?: number): string {
  const yaml = DEVNET_YAML.replace('name: devnet', 'name: fast-test')
    .replace('test: false', 'test: true')
    .replace(/slot_duration_ms: \d+/, `slot_duration_ms: ${slotMs}`)
    .replace(/active_slot_coeff: \S+/, 'active_slot_coeff: 1/2')
    .replace(/initial_difficulty: \d+/, 'initial_difficulty: 8')
    .replace('security_param: 10', `security_param: ${k}`)
    .replace(/^(\s+)rounds_per_slot: \d+/m, '$1rounds_per_slot: 1')
    .replace(/message_frequency_per_round: [\d.]+/, 'message_frequency_per_round: 0.1');
  return genesisTimeS === undefined
    ? yaml
    : yaml.replace('genesis_time: null', `genesis_time: ${genesisTimeS}`);
}

/** As `fastDeploymentYaml`, parsed. */
export function fastDeployment(slotMs: number, k: number, genesisTimeS?: number): Deployment {
  return parseDeployment(fastDeploymentYaml(slotMs, k, genesisTimeS), 'fast-test');
}

/** 100 ms slots, k = 2 (40-slot epochs). */
export const FAST: Deployment = fastDeployment(100, 2);
