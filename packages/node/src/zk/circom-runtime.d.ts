declare module 'circom_runtime' {
  export interface WitnessCalculator {
    /** The witness as a `.wtns` file's bytes. */
    calculateWTNSBin(input: Record<string, unknown>, sanityCheck?: boolean): Promise<Uint8Array>;
  }
  export function WitnessCalculatorBuilder(code: Uint8Array, options?: unknown): Promise<WitnessCalculator>;
}
