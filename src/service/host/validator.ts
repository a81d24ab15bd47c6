// JSON Schema validators compiled on their first use: compiling one takes 20-80 ms, and a service (every
// `bcs run` starts one) holds validators for every route and for rare requests (deploys, live-view input).
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';

/** Checks data as ajv's ValidateFunction does: `errors` says why after a false. */
export interface LazyValidator<T = unknown> {
  (data: unknown): data is T;
  errors?: ErrorObject[] | null;
}

/** `schema` compiled on the first call, with the ajv instance `ajv()` gives then. */
export function compiledOnFirstUse<T = unknown>(ajv: () => Ajv, schema: object): LazyValidator<T> {
  let compiled: ValidateFunction<T> | undefined;
  const validate = ((data: unknown): data is T => {
    compiled ??= ajv().compile<T>(schema);
    const ok = compiled(data);
    validate.errors = compiled.errors;
    return ok;
  }) as LazyValidator<T>;
  validate.errors = null;
  return validate;
}

/** The same with an ajv instance of its own, made on the first call too. */
export function validatorOnFirstUse<T = unknown>(schema: object, options: Options): LazyValidator<T> {
  return compiledOnFirstUse<T>(() => new Ajv(options), schema);
}
