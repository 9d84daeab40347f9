/**
 * Child process of the crash test: `node --import tsx crash-writer.ts DIR SEED [MAX_COMMITS]`.
 *
 * Opens the store in DIR (taking over the stale lock of a killed predecessor), rebuilds the crash model
 * from it, prints `ready N` (N = commits found in the store), then commits the model's steps one after
 * another through the ChainStore, printing `committed N` once each commit is durable, until it is killed
 * (or has made MAX_COMMITS commits, then it closes the store and exits).
 */
import { openStore } from '../../../src/storage/open.ts';
import { CrashModel } from './crash-model.ts';

const [dir, seedArg, maxArg] = process.argv.slice(2);
if (dir === undefined || seedArg === undefined)
  throw new Error('usage: crash-writer.ts DIR SEED [MAX_COMMITS]');
const out = (line: string) => process.stdout.write(`${line}\n`);

const store = await openStore(dir, { onWarning: (m) => out(`warning ${m}`) });
const model = CrashModel.load(store.chain, Number(seedArg));
out(`ready ${model.counter}`);
const stopAt = maxArg === undefined ? undefined : model.counter + BigInt(maxArg);
while (stopAt === undefined || model.counter < stopAt) {
  await store.chain.commit(model.step());
  out(`committed ${model.counter}`);
}
await store.close();
