// Generated from lib/tools/input-schemas.ts by `node dist/scripts/gen-tool-schemas.js`; a test keeps it in step. Do not edit.

/** The JSON Schema of each built-in tool's input, by tool name, as providers are sent it. */
export const INPUT_JSON_SCHEMAS: Record<string, Record<string, unknown>> = {
  read_file: {
    type: 'object',
    properties: {
      path: {
        description: 'File path, relative to the workspace',
        type: 'string',
        minLength: 1,
      },
      offset: {
        description: 'First line to show (1-based); default 1',
        type: 'integer',
        minimum: 1,
        maximum: 9007199254740991,
      },
      limit: {
        description: 'How many lines to show; default 2000',
        type: 'integer',
        minimum: 1,
        maximum: 9007199254740991,
      },
    },
    required: ['path'],
  },
  write_file: {
    type: 'object',
    properties: {
      path: {
        description: 'File path, relative to the workspace',
        type: 'string',
        minLength: 1,
      },
      content: {
        description: 'The whole new content of the file',
        type: 'string',
      },
    },
    required: ['path', 'content'],
  },
  edit: {
    type: 'object',
    properties: {
      path: {
        description: 'File path, relative to the workspace',
        type: 'string',
        minLength: 1,
      },
      old_string: {
        description: 'Exact text to replace, including whitespace; must occur exactly once unless replace_all',
        type: 'string',
        minLength: 1,
      },
      new_string: {
        description: 'Replacement text',
        type: 'string',
      },
      replace_all: {
        description: 'Replace every occurrence; default false',
        type: 'boolean',
      },
    },
    required: ['path', 'old_string', 'new_string'],
  },
  bash: {
    type: 'object',
    properties: {
      command: {
        description: 'A bash command line, run with `bash -c` in the workspace',
        type: 'string',
        minLength: 1,
      },
      timeout_ms: {
        description: 'Deadline in milliseconds; default 120000',
        type: 'integer',
        minimum: 1,
        maximum: 600000,
      },
    },
    required: ['command'],
  },
  grep: {
    type: 'object',
    properties: {
      pattern: {
        description: 'JavaScript regular expression to search for',
        type: 'string',
        minLength: 1,
      },
      path: {
        description: 'File or directory to search; default the workspace',
        type: 'string',
      },
      glob: {
        description: 'Only files matching this glob, e.g. `*.ts`',
        type: 'string',
      },
      ignore_case: {
        description: 'Case-insensitive; default false',
        type: 'boolean',
      },
    },
    required: ['pattern'],
  },
  glob: {
    type: 'object',
    properties: {
      pattern: {
        description: 'Glob such as `**/*.ts` or `src/*.{js,mjs}`; without a slash it matches file names at any depth',
        type: 'string',
        minLength: 1,
      },
      path: {
        description: 'Directory to search; default the workspace',
        type: 'string',
      },
    },
    required: ['pattern'],
  },
  git_commit: {
    type: 'object',
    properties: {
      message: {
        description: 'Commit message',
        type: 'string',
        minLength: 1,
      },
      paths: {
        description: 'Paths to stage first; default: every tracked change (git add -u)',
        type: 'array',
        items: {
          type: 'string',
          minLength: 1,
        },
      },
    },
    required: ['message'],
  },
  submit_result: {
    type: 'object',
    properties: {
      findings: {
        description: 'Explicit findings {category, severity, summary, evidence?}',
        type: 'array',
        items: {
          type: 'object',
          properties: {
            category: {
              type: 'string',
            },
            severity: {
              type: 'string',
            },
            summary: {
              type: 'string',
            },
            evidence: {},
          },
          required: ['category', 'severity', 'summary'],
        },
      },
    },
    additionalProperties: {},
  },
  update_plan: {
    type: 'object',
    properties: {
      explanation: {
        description: 'Why the plan is what it is, or what changed',
        type: 'string',
      },
      plan: {
        description: 'The whole plan, in order',
        minItems: 1,
        type: 'array',
        items: {
          type: 'object',
          properties: {
            step: {
              description: 'One short step',
              type: 'string',
              minLength: 1,
            },
            status: {
              type: 'string',
              enum: ['pending', 'in_progress', 'completed'],
            },
          },
          required: ['step', 'status'],
        },
      },
    },
    required: ['plan'],
  },
  ask_user: {
    type: 'object',
    properties: {
      question: {
        description: 'One clear question for the user',
        type: 'string',
        minLength: 1,
      },
    },
    required: ['question'],
  },
  task: {
    type: 'object',
    properties: {
      description: {
        description: 'A short (3-5 word) description of the task',
        type: 'string',
        minLength: 1,
      },
      prompt: {
        description:
          'The task for the agent to perform: everything it needs to know, since it does not see this conversation',
        type: 'string',
        minLength: 1,
      },
      subagent_type: {
        description:
          'The type of agent to use: general (all your tools), explore (read-only tools), or a defined agent',
        type: 'string',
        minLength: 1,
      },
      model: {
        description: "A model for the child; default the agent definition's, else yours",
        type: 'string',
        minLength: 1,
      },
    },
    required: ['description', 'prompt', 'subagent_type'],
  },
  read_image: {
    type: 'object',
    properties: {
      path: {
        description: 'Image file path (PNG, JPEG, GIF or WebP), relative to the workspace',
        type: 'string',
        minLength: 1,
      },
    },
    required: ['path'],
  },
  skill: {
    type: 'object',
    properties: {
      name: {
        description: 'The name of the skill, as listed in the system prompt',
        type: 'string',
        minLength: 1,
      },
    },
    required: ['name'],
  },
  apply_patch: {
    type: 'object',
    properties: {
      input: {
        description: 'The whole patch, from *** Begin Patch to *** End Patch',
        type: 'string',
        minLength: 1,
      },
    },
    required: ['input'],
  },
  insert_text: {
    type: 'object',
    properties: {
      path: {
        description: 'File path, relative to the workspace',
        type: 'string',
        minLength: 1,
      },
      insert_line: {
        description: 'The line after which the text goes; 0 puts it before the first line',
        type: 'integer',
        minimum: 0,
        maximum: 9007199254740991,
      },
      text: {
        description: 'The text to insert',
        type: 'string',
      },
    },
    required: ['path', 'insert_line', 'text'],
  },
};
