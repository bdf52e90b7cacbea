/** The truncation layers (seed §6): each cap leaves a marker saying how much it cut. */
import { describe, expect, it } from 'vitest';
import { capProducerOutput, kernelTruncate, PRODUCER_CAPS } from '../../lib/control/truncation.js';

describe('producer caps', () => {
  it('are bash 20k, git 500k, MCP 100k chars', () => {
    expect(PRODUCER_CAPS).toEqual({ bash: 20_000, git: 500_000, mcp: 100_000 });
  });

  it('keep the head and append a marker with the amount cut', () => {
    const r = capProducerOutput('a'.repeat(25_000), 'bash');
    expect(r).toMatchObject({ truncated: true, removedChars: 5_000 });
    expect(r.text.startsWith('a'.repeat(20_000) + '\n')).toBe(true);
    expect(r.text).toContain('[minicode: bash output truncated at 20,000 chars; 5,000 of 25,000 chars cut]');
  });

  it('leave output under the cap untouched', () => {
    expect(capProducerOutput('short', 'mcp')).toEqual({ text: 'short', truncated: false, removedChars: 0 });
  });
});

describe('the kernel cap', () => {
  it('keeps 4,096 tokens = 16,384 chars as 70% head and 30% tail with a middle marker', () => {
    const text = 'H'.repeat(20_000) + 'T'.repeat(20_000);
    const r = kernelTruncate(text);
    const [head, rest] = r.text.split('\n[minicode: ');
    expect(head).toBe('H'.repeat(Math.floor(16_384 * 0.7)));
    expect(rest?.endsWith('T'.repeat(16_384 - 11_468))).toBe(true);
    expect(r.removedChars).toBe(40_000 - 16_384);
    expect(r.text).toContain('23,616 chars (~5,904 tokens) cut from the middle by the 4,096-token tool result cap');
  });

  it('does not double-truncate: output within the cap passes through', () => {
    const text = 'x'.repeat(16_384);
    expect(kernelTruncate(text)).toEqual({ text, truncated: false, removedChars: 0 });
  });

  it('applies after a producer cap, and each layer keeps its own marker', () => {
    const producer = capProducerOutput('y'.repeat(600_000), 'git');
    const kernel = kernelTruncate(producer.text);
    expect(kernel.text).toContain('cut from the middle by the 4,096-token tool result cap');
    expect(kernel.text).toContain('git output truncated at 500,000 chars'); // the producer marker sits in the kept tail
  });
});
