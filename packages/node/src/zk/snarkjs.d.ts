declare module 'snarkjs' {
  export interface SnarkjsProof {
    pi_a: string[];
    pi_b: string[][];
    pi_c: string[];
    protocol: string;
    curve: string;
  }
  export type MemFile = { type: 'mem'; data: Uint8Array } | string;
  export const curves: { getCurveFromName(name: string): Promise<unknown> };
  export const groth16: {
    fullProve(
      input: Record<string, unknown>,
      wasm: MemFile,
      zkey: MemFile,
      logger?: unknown,
      wtnsCalcOptions?: unknown,
      proverOptions?: unknown,
    ): Promise<{ proof: SnarkjsProof; publicSignals: string[] }>;
    verify(vk: unknown, publicSignals: string[], proof: SnarkjsProof): Promise<boolean>;
  };
}
