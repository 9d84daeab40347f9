/**
 * `logosctl call MODULE METHOD [args...]` (operator.md §1.4; call_command.cpp @1a4f56fe): the arguments
 * typed as the reference client types them (args.ts); JSON the whole envelope, human the result alone
 * (strings raw, numbers and booleans plain, null nothing). A failed call exits 4.
 */
import { type Json, JsonFloat } from '@logos-ts/shared/json';
import type { Command } from 'commander';
import { InvalidArgs, typeArgs } from '../args.ts';
import { callTimeoutMs } from '../client.ts';
import { dumpPretty } from '../output.ts';
import type { CtlContext } from './context.ts';

export function addCallCommand(program: Command, c: CtlContext): void {
  program
    .command('call')
    .description(
      'call MODULE METHOD [args...]: json:<v>, json:@file, str:<text>, @file, true/false, numbers, text',
    )
    .argument('<module>')
    .argument('<method>')
    .argument('[args...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (module: string, method: string, raw: string[]) => {
      const { out } = c.ctx();
      let args: Json[];
      try {
        args = typeArgs(raw, process.cwd());
      } catch (e) {
        if (!(e instanceof InvalidArgs)) throw e;
        c.fail(out, 'INVALID_ARGS', e.message);
        return;
      }
      const r = await c.ask('call', { module, method, args }, true, {
        ms: callTimeoutMs(),
        message: `callModuleMethod('${module}','${method}') RPC call failed.`,
      });
      if (r === null) return;
      if (out.json) out.data(r);
      else printHumanResult(r.result ?? null);
    });
}

function printHumanResult(v: Json): void {
  if (v === null) return;
  let text: string;
  if (typeof v === 'string') text = v;
  else if (v instanceof JsonFloat)
    text = Number.isInteger(v.value) ? BigInt(v.value).toString() : String(v.value);
  else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') text = String(v);
  else text = dumpPretty(v);
  process.stdout.write(`${text}\n`);
}
