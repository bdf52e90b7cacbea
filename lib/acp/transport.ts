import { Readable, Writable } from 'node:stream';
import { ndJsonStream, type AnyMessage, type JsonRpcId, type Stream } from '@agentclientprotocol/sdk';

/** Options of {@link stdioTransport}. */
export interface TransportOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Largest incoming line; default 8 MiB. A longer line closes the connection (SDK behaviour). */
  maxMessageBytes?: number;
}

/** A transport whose written responses can trigger follow-up messages. */
export interface ObservedTransport {
  stream: Stream;
  /**
   * Run `fn` once the response to request `id` has been written. ACP forbids updates for a
   * session before its `session/new` response; messages sent from `fn` come after it on the wire.
   */
  afterResponse(id: JsonRpcId, fn: () => void): void;
}

/** ACP over newline-delimited JSON on stdin/stdout (or the given streams). */
export function stdioTransport(options: TransportOptions = {}): ObservedTransport {
  const input = Readable.toWeb((options.input ?? process.stdin) as Readable) as ReadableStream<Uint8Array>;
  const output = Writable.toWeb((options.output ?? process.stdout) as Writable) as WritableStream<Uint8Array>;
  return observeResponses(ndJsonStream(output, input, { maxMessageBytes: options.maxMessageBytes ?? 8 * 1024 * 1024 }));
}

/**
 * Wrap a stream so that callbacks can wait for a response to be written. The SDK connection
 * writes one message at a time and waits for each write, so whatever a callback sends is
 * queued behind the response it waited for: ordering without timers.
 */
export function observeResponses(inner: Stream): ObservedTransport {
  const waiting = new Map<JsonRpcId, Array<() => void>>();
  // Requests read but not yet answered. At end of input the connection stays open until they
  // are answered, so `printf '...' | minicode acp` gets every response before the exit.
  const inflight = new Set<JsonRpcId>();
  let drained: (() => void) | undefined;
  // Our requests to the client (permission, files, terminals) not yet answered. Once the input
  // has ended no answer can come: each gets an error response at once (a permission denies),
  // so the turns above can end instead of waiting forever.
  const asked = new Set<JsonRpcId>();
  let ended: ReadableStreamDefaultController<AnyMessage> | undefined;
  const unanswered = (id: JsonRpcId): AnyMessage => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32603, message: 'the client closed its input before answering' },
  });
  // The SDK refuses every request but initialize until initialize has been answered, and it
  // handles the messages it reads at once: so nothing more is read while an initialize waits for
  // its answer, and a client that pipes `session/new` right behind `initialize` is not refused.
  let initializing: Promise<void> | undefined;
  const reader = inner.readable.getReader();
  const readable = new ReadableStream<AnyMessage>({
    async pull(controller) {
      if (initializing) await initializing;
      const { value, done } = await reader.read();
      if (!done) {
        if ('method' in value && 'id' in value && value.method === 'initialize') {
          const id = value.id;
          initializing = new Promise<void>((resolve) => {
            const callbacks = waiting.get(id) ?? [];
            callbacks.push(() => {
              initializing = undefined;
              resolve();
            });
            waiting.set(id, callbacks);
          });
        }
        if ('method' in value && 'id' in value) inflight.add(value.id);
        else if ('id' in value && value.id !== null) asked.delete(value.id);
        controller.enqueue(value);
        return;
      }
      ended = controller;
      for (const id of asked) controller.enqueue(unanswered(id));
      asked.clear();
      if (inflight.size > 0) await new Promise<void>((resolve) => (drained = resolve));
      ended = undefined;
      controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const writable = new WritableStream<AnyMessage>({
    async write(message) {
      const writer = inner.writable.getWriter();
      try {
        await writer.write(message);
      } finally {
        writer.releaseLock();
      }
      if ('method' in message && 'id' in message) {
        if (ended) ended.enqueue(unanswered(message.id));
        else asked.add(message.id);
      }
      if ('id' in message && !('method' in message) && message.id !== null) {
        inflight.delete(message.id);
        if (inflight.size === 0) drained?.();
        const callbacks = waiting.get(message.id);
        if (callbacks) {
          waiting.delete(message.id);
          for (const fn of callbacks) fn();
        }
      }
    },
    close: () => inner.writable.close(),
    abort: (reason) => inner.writable.abort(reason),
  });
  return {
    stream: { readable, writable },
    afterResponse(id, fn) {
      const callbacks = waiting.get(id) ?? [];
      callbacks.push(fn);
      waiting.set(id, callbacks);
    },
  };
}
