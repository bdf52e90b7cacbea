/**
 * joinStages: the run pipeline's stages piped in order, with `stream.pipeline`'s contract:
 * backpressure, the first error destroys every stage and rejects, a stage that closes before
 * its end is a premature close, and the promise resolves when the last stage has finished.
 */
import { PassThrough, Readable, Transform, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { joinStages, PREMATURE_CLOSE } from '../../lib/pipeline/join.js';

const upper = (): Transform =>
  new Transform({
    objectMode: true,
    highWaterMark: 1,
    transform(chunk: string, _encoding, callback) {
      callback(null, chunk.toUpperCase());
    },
  });

function collector(out: string[], options: { highWaterMark?: number; hold?: () => Promise<void> } = {}): Writable {
  return new Writable({
    objectMode: true,
    highWaterMark: options.highWaterMark ?? 16,
    write(chunk: string, _encoding, callback) {
      out.push(chunk);
      if (options.hold) options.hold().then(() => callback());
      else callback();
    },
  });
}

describe('joinStages', () => {
  it('passes every chunk through the stages in order and resolves once the last stage finished', async () => {
    const out: string[] = [];
    const sink = collector(out);
    await joinStages([Readable.from(['a', 'b', 'c']), upper(), upper(), sink]);
    expect(out).toEqual(['A', 'B', 'C']);
    expect(sink.writableFinished).toBe(true);
  });

  it('holds the head back while a later stage is full (backpressure)', async () => {
    const out: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const head = new PassThrough({ objectMode: true, highWaterMark: 2 });
    const done = joinStages([head, upper(), collector(out, { highWaterMark: 1, hold: () => gate })]);
    let accepted = 0;
    for (let i = 0; i < 20 && head.write(`x${i}`); i++) accepted++;
    // The sink holds its first chunk: only the stages' buffers fill, then the head says stop.
    expect(accepted).toBeLessThan(20);
    release();
    head.end();
    await done;
    expect(out.length).toBe(accepted + 1);
  });

  it('rejects with the first error of a middle stage and destroys every stage', async () => {
    const head = new PassThrough({ objectMode: true });
    const failing = new Transform({
      objectMode: true,
      transform(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('bad batch'), { code: 'TEST_E_STAGE' }));
      },
    });
    const sink = collector([]);
    const done = joinStages([head, failing, sink]);
    head.write('a');
    await expect(done).rejects.toMatchObject({ code: 'TEST_E_STAGE' });
    expect(head.destroyed && failing.destroyed && sink.destroyed).toBe(true);
  });

  it('rejects when the head errors, and a later error of another stage is neither reported nor thrown', async () => {
    const head = new PassThrough({ objectMode: true });
    const sink = collector([]);
    const done = joinStages([head, upper(), sink]);
    head.destroy(Object.assign(new Error('read failed'), { code: 'TEST_E_READ' }));
    await expect(done).rejects.toMatchObject({ code: 'TEST_E_READ' });
    expect(() => sink.emit('error', new Error('later'))).not.toThrow();
  });

  it('reports a stage destroyed before its end as a premature close', async () => {
    const head = new PassThrough({ objectMode: true });
    const middle = upper();
    const done = joinStages([head, middle, collector([])]);
    middle.destroy();
    await expect(done).rejects.toMatchObject({ code: PREMATURE_CLOSE });
    expect(head.destroyed).toBe(true);
  });

  it('refuses fewer than two stages', () => {
    expect(() => joinStages([new PassThrough()])).toThrow(TypeError);
  });
});
