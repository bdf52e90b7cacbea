/** The config file's `checkpoints` key as a zod schema (part of lib/config.ts's schema); lib/checkpoints/settings.ts reads the validated value. */
import { z } from 'zod';

/** The config file's `checkpoints` key: false, or limits to override. */
export const CheckpointConfigSchema = z.union([
  z.boolean(),
  z.object({
    maxFileBytes: z.number().int().positive().optional(),
    maxUntrackedDirFiles: z.number().int().positive().optional(),
    maxFiles: z.number().int().positive().optional(),
    skipDirs: z.array(z.string().min(1)).optional(),
    maxIgnoredFileBytes: z.number().int().nonnegative().optional(),
    maxIgnoredBytes: z.number().int().nonnegative().optional(),
    maxAgeDays: z.number().positive().optional(),
    maxCheckpoints: z.number().int().positive().optional(),
  }),
]);
/** A validated `checkpoints` config value. */
export type CheckpointConfig = z.infer<typeof CheckpointConfigSchema>;
