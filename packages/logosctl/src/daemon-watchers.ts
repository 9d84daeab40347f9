/**
 * The daemon's event subscriptions (`watch`; operator.md §1.5, client.cpp watchModuleEvents @1a4f56fe):
 * a `watch` connection stays open and gets `{"data","event","module"}` lines of its module's events (of
 * one event with `event`). A watcher that does not read is dropped rather than buffered without end; an
 * unloaded module's watchers are ended.
 */
import type { Socket } from 'node:net';
import type { Json } from '@logos-ts/shared/json';
import type { Logger } from 'pino';
import { errorReply } from './module-supervisor.ts';
import { writeLine } from './rpc.ts';

/** The most bytes of events queued for one `watch` connection before it is dropped. */
const MAX_WATCH_BACKLOG = 8 * 1024 * 1024;

interface Watcher {
  readonly module: string;
  readonly event: string | undefined;
  readonly socket: Socket;
}

export class Watchers {
  private readonly watchers = new Set<Watcher>();

  constructor(private readonly log: Logger) {}

  /** Answers a `watch` request: subscribed when the module is loaded, else `MODULE_NOT_LOADED`. */
  watch(module: string, event: string | undefined, socket: Socket, loaded: boolean): void {
    if (!loaded) {
      writeLine(
        socket,
        errorReply(
          'MODULE_NOT_LOADED',
          `Module '${module}' is not loaded. Load it with: logosctl module load ${module}`,
        ),
      );
      socket.end();
      return;
    }
    const w = { module, event, socket };
    this.watchers.add(w);
    socket.on('close', () => this.watchers.delete(w));
    writeLine(socket, { status: 'ok', module, watching: event ?? '*' });
  }

  /** Sends a module's event to its watchers. */
  publish(module: string, event: string, payload: Json): void {
    for (const w of this.watchers) {
      if (w.module !== module || (w.event !== undefined && w.event !== event)) continue;
      // a watcher that does not read is dropped rather than buffered without end
      if (w.socket.writableLength > MAX_WATCH_BACKLOG) {
        this.log.warn({ module, backlog: w.socket.writableLength }, 'watcher not reading; dropped');
        this.watchers.delete(w);
        w.socket.destroy();
        continue;
      }
      writeLine(w.socket, { module, event, data: payload });
    }
  }

  /** Ends the watchers of a module (it is being unloaded). */
  endModule(module: string): void {
    for (const w of this.watchers) if (w.module === module) w.socket.end();
  }

  /** Ends every watcher (the daemon stops). */
  endAll(): void {
    for (const w of this.watchers) w.socket.end();
  }
}
