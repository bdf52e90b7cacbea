import { createRequire } from 'node:module';
import Ajv2020 from 'ajv/dist/2020.js';

/**
 * Validates ACP messages against the official v1 JSON Schema shipped in the SDK package
 * (`@agentclientprotocol/sdk/schema/v1/schema.json`). The schema's top-level union is loose
 * (extension methods accept anything), so each message is also checked against the definition
 * of its own method: params by the request/notification definition, results by the response
 * definition of the request they answer (matched by id), errors by `Error`.
 */
export interface WireValidator {
  /** Errors for one message sent by `from`; empty when it conforms. */
  check(from: 'client' | 'agent', message: unknown): string[];
}

const require = createRequire(import.meta.url);
const schema = require('@agentclientprotocol/sdk/schema/v1/schema.json') as {
  $defs: Record<string, { 'x-method'?: string }>;
};

let shared: InstanceType<typeof Ajv2020.default> | undefined;

/** One compiled schema per process: compiling it takes most of a second. */
function compiled(): InstanceType<typeof Ajv2020.default> {
  if (shared) return shared;
  shared = new Ajv2020.default({ strict: false, allErrors: true, logger: false });
  // Numeric widths the schema names; JSON numbers are checked by type, which is enough here.
  for (const format of ['int32', 'int64', 'uint16', 'uint32', 'uint64', 'double', 'uri'])
    shared.addFormat(format, true);
  shared.addSchema(schema, 'acp');
  return shared;
}

export function createWireValidator(): WireValidator {
  const ajv = compiled();
  const requestDef = new Map<string, string>();
  const responseDef = new Map<string, string>();
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def['x-method'];
    if (!method) continue;
    if (name.endsWith('Response')) responseDef.set(method, name);
    else requestDef.set(method, name);
  }
  const validate = (ref: string, value: unknown): string[] => {
    const fn = ajv.getSchema(ref);
    if (!fn) return [`no schema ${ref}`];
    return fn(value) ? [] : (fn.errors ?? []).map((e) => `${ref}${e.instancePath} ${e.message ?? ''}`);
  };
  // Requests in flight, per side that sent them: id -> method.
  const pending = { client: new Map<unknown, string>(), agent: new Map<unknown, string>() };

  return {
    check(from, message) {
      const errors = validate('acp', message);
      if (message === null || typeof message !== 'object') return [...errors, 'not an object'];
      const m = message as {
        id?: unknown;
        method?: unknown;
        params?: unknown;
        result?: unknown;
        error?: unknown;
        jsonrpc?: unknown;
      };
      if (m.jsonrpc !== '2.0') errors.push('jsonrpc is not "2.0"');
      if (typeof m.method === 'string') {
        const def = requestDef.get(m.method);
        if (!def) return [...errors, `unknown method ${m.method}`];
        errors.push(...validate(`acp#/$defs/${def}`, m.params));
        if ('id' in m) pending[from].set(m.id, m.method);
        return errors;
      }
      if (m.error !== undefined) return [...errors, ...validate('acp#/$defs/Error', m.error)];
      const other = from === 'agent' ? 'client' : 'agent';
      const method = pending[other].get(m.id);
      if (method === undefined) return [...errors, `response to unknown request ${String(m.id)}`];
      pending[other].delete(m.id);
      const def = responseDef.get(method);
      return def
        ? [...errors, ...validate(`acp#/$defs/${def}`, m.result)]
        : [...errors, `no response schema for ${method}`];
    },
  };
}
