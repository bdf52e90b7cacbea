import type { Command } from 'commander';

/** `minicode schema`: print the JSON Schema of minicode.output.v1, generated from the zod source. */
export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of minicode.output.v1')
    .action(async () => {
      const { outputJsonSchema } = await import('../../lib/events/json-schema.js');
      const { writeOut } = await import('../stdout.js');
      writeOut(JSON.stringify(outputJsonSchema(), null, 2) + '\n');
    });
}
