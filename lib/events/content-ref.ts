import { z } from 'zod';

/**
 * A reference to large content kept outside the event (I-A06). Payloads never inline large
 * content; they carry a ref with the digest, size and an optional short preview. When the
 * content store evicts the bytes, the ref keeps an eviction marker instead of disappearing.
 */
export const ContentRef = z
  .object({
    /** `sha256:<hex>` digest of the content; the content store's key. */
    ref: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'ref must be sha256:<64 hex chars>'),
    /** Size of the full content in bytes. */
    size: z.number().int().nonnegative(),
    mediaType: z.string().optional(),
    /** A short scrubbed preview (at most 512 characters). */
    preview: z.string().max(512).optional(),
    /** Present when the bytes were evicted or never stored (over the store cap). */
    evicted: z
      .object({
        reason: z.enum(['size-cap', 'eviction', 'not-stored']),
        at: z.string().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ContentRef = z.infer<typeof ContentRef>;
