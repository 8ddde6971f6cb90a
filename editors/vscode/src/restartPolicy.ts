// Bounded restarts after server crashes: at most `maxRestarts` within `windowMs`. Past that the
// server stays down until the user restarts it, so a server that crashes on start cannot loop.

export class RestartPolicy {
  private crashes: number[] = [];

  constructor(
    readonly maxRestarts = 5,
    readonly windowMs = 3 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a crash; returns whether to restart and a sentence for the user. */
  onCrash(): { restart: boolean; message: string } {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < this.windowMs);
    this.crashes.push(t);
    const n = this.crashes.length;
    const minutes = Math.round(this.windowMs / 60000);
    if (n <= this.maxRestarts) {
      return {
        restart: true,
        message: `The opscope server stopped unexpectedly; restarting it (${n} of ${this.maxRestarts} restarts allowed in ${minutes} minutes).`,
      };
    }
    return {
      restart: false,
      message: `The opscope server crashed ${n} times in ${minutes} minutes and will not be restarted. See the "opscope" output, then run "opscope: Restart Server".`,
    };
  }

  /** After a manual restart the count starts again. */
  reset(): void {
    this.crashes = [];
  }
}

/**
 * Whether the client keeps its connection after an error on it (vscode-languageclient's
 * errorHandler.error). A stream error (no message count: EPIPE from writing to a server that
 * just died) is not the server's fault and must not stop the client, or the crash is never
 * restarted: the `closed` handler (bounded above) decides once the process is gone. Only
 * repeated failures to write messages give up.
 */
export function keepConnection(messageErrorCount: number | undefined): boolean {
  return messageErrorCount === undefined || messageErrorCount <= 3;
}
