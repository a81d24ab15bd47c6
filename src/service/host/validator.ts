// A JSON Schema validator compiled on its first use: compiling one takes 20-80 ms, and modules holding
// validators for rare requests (deploys, live-view input) load with every service, embedded ones included.
import { Ajv, type Options, type ValidateFunction } from 'ajv';

export function validatorOnFirstUse<T = unknown>(schema: object, options: Options): () => ValidateFunction<T> {
  let compiled: ValidateFunction<T> | undefined;
  return () => (compiled ??= new Ajv(options).compile<T>(schema));
}
