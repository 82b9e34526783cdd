/*! A progress line on stderr for big inputs: bytes read, MB/s and ETA. Only on a terminal, only when the
 * inputs add up to more than 100 MB; silent otherwise, so pipes and CI logs never see it. */

/** Draws and clears the progress line. */
export class Progress {
  private read = 0;
  private last = 0;
  private readonly start = Date.now();
  private drawn = false;

  constructor(
    private readonly total: number,
    private readonly write: (s: string) => void,
  ) {}

  /** Only worth showing for big inputs on a terminal. */
  static wanted(totalBytes: number, stderrIsTTY: boolean): boolean {
    return stderrIsTTY && totalBytes > 100e6;
  }

  /** Adds bytes read; redraws at most 4 times a second. */
  add(n: number): void {
    this.read += n;
    const now = Date.now();
    if (now - this.last < 250) return;
    this.last = now;
    const secs = (now - this.start) / 1000;
    const rate = secs > 0 ? this.read / secs : 0;
    const pct = Math.min(100, Math.floor((100 * this.read) / this.total));
    const eta = rate > 0 ? Math.max(0, Math.round((this.total - this.read) / rate)) : 0;
    const bar = '#'.repeat(Math.floor(pct / 5)).padEnd(20, '.');
    this.write(`\r[${bar}] ${pct}%  ${(this.read / 1e6).toFixed(0)}/${(this.total / 1e6).toFixed(0)} MB  ${(rate / 1e6).toFixed(0)} MB/s  ETA ${eta}s\u001b[K`);
    this.drawn = true;
  }

  /** Erases the line. */
  done(): void {
    if (this.drawn) this.write('\r\u001b[K');
  }
}
