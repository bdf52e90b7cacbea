/** `buildProgram(argv)` registers only `exec` for an exec run; the command must not notice. */
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/program.js';

describe('the program built for an exec run', () => {
  it('holds exec alone, with the same help, flags and program settings as the full program’s exec', () => {
    const full = buildProgram();
    const lean = buildProgram(['node', 'minicode', 'exec', 'a prompt']);
    expect(full.commands.length).toBeGreaterThan(10);
    expect(lean.commands.map((c) => c.name())).toEqual(['exec']);
    const fullExec = full.commands.find((c) => c.name() === 'exec')!;
    const leanExec = lean.commands[0]!;
    expect(leanExec.helpInformation()).toBe(fullExec.helpInformation());
    expect(leanExec.options.map((o) => o.flags)).toEqual(fullExec.options.map((o) => o.flags));
    // Positional program options: flags after `exec` are exec's in both.
    const settings = (p: typeof full) => ({
      positional: (p as unknown as { _enablePositionalOptions: boolean })._enablePositionalOptions,
      version: p.version(),
    });
    expect(settings(lean)).toEqual(settings(full));
  });

  it('parses an exec command line to the same flags as the full program', async () => {
    const argv = [
      'node',
      'minicode',
      'exec',
      'do it',
      '--json',
      '--provider',
      'anthropic',
      '--max-steps',
      '3',
      '--no-checkpoint',
    ];
    const seen: unknown[] = [];
    for (const program of [buildProgram(), buildProgram(argv)]) {
      const exec = program.commands.find((c) => c.name() === 'exec')!;
      exec.action((prompt: string, flags: unknown) => {
        seen.push([prompt, flags]);
      });
      await program.parseAsync(argv);
    }
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
  });
});
