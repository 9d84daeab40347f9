/**
 * A request-body schema made from a binary/JSON codec (codec/schema.ts): the codec's `fromJson` checks
 * and converts the value (canonical field elements, curve points, multiaddrs, bounds), and its failure
 * becomes a `SchemaError`, which the server answers as the reference's plain-text 422.
 */
import { DecodeError } from '../codec/errors.ts';
import type { Codec } from '../codec/schema.ts';
import { type JsonSchema, type Schema, SchemaError } from './json-schema.ts';

export function codecSchema<T>(codec: Codec<T>, jsonSchema: JsonSchema): Schema<T> {
  return {
    jsonSchema: { description: codec.kind, ...jsonSchema },
    decode(v, path = '') {
      try {
        return codec.fromJson(v);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        const where = [path, e.path].filter((p) => p !== '').join('.');
        throw new SchemaError(where, `${codec.kind} (${e.reason})`, v);
      }
    },
  };
}
