/**
 * The tool-shape setting, apart from the shapes themselves (shapes.ts) so that the config
 * schema and the CLI flags read it without loading the tool registry.
 */

/** The values of config `tools.shapes` and `--tool-shapes`. */
export const TOOL_SHAPE_SETTINGS = ['native', 'minicode'] as const;
/** `native`: the vendor's shapes where the model has them (the default); `minicode`: ours everywhere. */
export type ToolShapeSetting = (typeof TOOL_SHAPE_SETTINGS)[number];
