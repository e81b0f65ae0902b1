import { z } from "zod";

const unitMs = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A report window such as `30m`, `6h` or `7d`: a positive whole number and a unit (m, h, d), at
 * most `max`. Zero, a fraction, another unit, or anything over the maximum is a 400.
 */
export function windowParam(defaultWindow: string, max: string) {
  const maxMs = windowMs(max);
  return z
    .string()
    .default(defaultWindow)
    .refine((w) => /^[1-9][0-9]{0,5}[mhd]$/.test(w), {
      message: "A window is a positive whole number followed by m, h or d, such as 30m, 6h or 7d.",
    })
    .refine((w) => !/^[1-9][0-9]{0,5}[mhd]$/.test(w) || windowMs(w) <= maxMs, {
      message: `The window may be at most ${max}.`,
    });
}

function windowMs(window: string): number {
  const unit = window.at(-1) as keyof typeof unitMs;
  return Number(window.slice(0, -1)) * unitMs[unit];
}

/** The window as instants: it ends now. */
export function windowBounds(window: string, now: Date) {
  return { start: new Date(now.getTime() - windowMs(window)), end: now };
}
