/**
 * Objects built with optional fields. Under `exactOptionalPropertyTypes` an optional key may be
 * absent but not `undefined`, and stored or emitted shapes must not gain keys: `definedOnly`
 * drops the keys whose value is `undefined` (key order kept), so a caller writes each field once
 * instead of one conditional spread per field.
 */

type MaybeUndefinedKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];

/** An array literal's type as a field takes it (the `const` inference below makes it a readonly tuple). */
type Field<V> = V extends readonly (infer E)[] ? E[] : V;

/** `T` with each key whose value may be `undefined` made optional and never `undefined`. */
export type DefinedOnly<T> = { -readonly [K in Exclude<keyof T, MaybeUndefinedKeys<T>>]: Field<T[K]> } & {
  -readonly [K in MaybeUndefinedKeys<T>]?: Field<Exclude<T[K], undefined>>;
};

/** `T` whose optional keys also take `undefined`. */
export type UndefinedAllowed<T> = { [K in keyof T]: {} extends Pick<T, K> ? T[K] | undefined : T[K] };

/**
 * A copy of `value` without the own keys whose value is `undefined`. Called with the target type
 * (`definedOnly<Options>({...})`), the object literal is typed from it (callbacks get their
 * parameter types) and the result is that type.
 */
export function definedOnly<const T extends object>(value: T): DefinedOnly<T>;
export function definedOnly<T extends object>(value: UndefinedAllowed<T>): T;
export function definedOnly(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in value) if (value[key] !== undefined) out[key] = value[key];
  return out;
}
