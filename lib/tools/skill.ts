import type { z } from 'zod';
import { skillContent, type SkillCatalogue } from '../extensions/skills.js';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { SkillInput } from './input-schemas.js';
import type { Tool } from './types.js';

type Input = z.infer<typeof SkillInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.skill!;

/**
 * `skill`: load one skill's instructions (lib/extensions/skills.ts) when the task needs them. The
 * system prompt lists only the names and descriptions; this returns the SKILL.md body, the
 * skill's folder and the files in it, so the model can read them with `read_file`. Offered only
 * when the run has skills.
 */
export function createSkillTool(catalogue: SkillCatalogue): Tool<Input> {
  return {
    name: 'skill',
    description: `Load a skill: its instructions, its folder and the files in it. Call it when a task matches a skill listed in the system prompt, before doing the work. Skills: ${catalogue.skills.map((s) => s.name).join(', ')}.`,
    inputSchema: SkillInput,
    jsonSchema: JSON_SCHEMA,
    kind: 'read',
    gated: false,
    readOnly: true,
    title: (input) => input.name,
    async run(input) {
      const skill = catalogue.skills.find((s) => s.name === input.name);
      if (!skill)
        return {
          status: 'failed',
          cause: 'MODEL_ERROR',
          message: `no skill named "${input.name}"`,
          hint: `the skills are: ${catalogue.skills.map((s) => s.name).join(', ')}`,
        };
      const output = skillContent(skill);
      return { status: 'completed', summary: `loaded skill ${skill.name}`, output, receipt: { paths: [skill.file] } };
    },
  };
}
