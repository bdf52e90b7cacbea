/**
 * The `exec --json` line contract (docs/exec.md), shared by the renderer's tests and the exec
 * end-to-end tests: every line parses; envelopes validate against the published schema and are
 * machine-visible; text records are exactly `{type, delta}`; one summary, last, versioned.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { ROOT } from './cli.js';

const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/schema/minicode.output.v1.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('date-time', true);
const validate = ajv.compile(schema);

/** Check every line against the contract; returns the parsed records. */
export function checkJsonlLines(lines: string[]): Record<string, unknown>[] {
  const records = lines.map((line, i) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`stdout line ${i + 1} is not JSON: ${line.slice(0, 200)}`);
    }
  });
  records.forEach((record, i) => {
    if (record.type === 'text') {
      expect(Object.keys(record).sort()).toEqual(['delta', 'type']);
      expect(typeof record.delta).toBe('string');
    } else if (record.type === 'summary') {
      expect(i, 'the summary is the last line').toBe(records.length - 1);
      expect(record.schema).toBe('minicode.output.v1');
      expect(typeof record.ok).toBe('boolean');
    } else {
      expect(validate(record), `line ${i + 1}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(record.visibility as string[]).toContain('machine');
    }
  });
  expect(records.filter((r) => r.type === 'summary')).toHaveLength(1);
  return records;
}
