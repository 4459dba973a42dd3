// One pool worker, seen the same way in every runtime (./spawn.ts for
// browsers, ./spawn-node.ts for Node, Deno and Bun).

import type { Request, Response } from './jobs.js';

export interface Endpoint {
  /** The worker script's URL, for error messages. */
  readonly script: string;
  post(message: Request, transfer: ArrayBuffer[]): void;
  onMessage(handler: (message: Response) => void): void;
  /** The worker died: its script failed to load, threw outside a job, or exited. */
  onError(handler: (error: Error) => void): void;
  /** Whether calls are in flight: Node keeps the process alive only then. */
  busy(busy: boolean): void;
  terminate(): void;
}
