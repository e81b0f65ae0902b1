/**
 * The shape of one project's day at 100M calls a day, as the reports see it. The reports read
 * whole hours from `call_rollups_hourly` and only three things from `calls`: the edge hours of the
 * window, the problem calls of the window (a partial index) and the refused calls (another). So the
 * store holds 30 days of hourly rollups at 100M a day and, raw, every call of the edge hours of the
 * windows timed (whole hours, their rollups built from those rows; every other hour's rollups are a
 * copy of one of them) plus the problem and refused calls of the last 24 hours; the healthy calls of the
 * middle hours, which no report reads, are left out (a full day of raw rows is ~55 GB on
 * PostgreSQL, more than this machine can spare).
 */

const callsPerDay = 100_000_000;
/** One call every 0.864 ms: call number g of the day is received at `dayStart + g * 864 µs`. */
export const spacingMicros = 86_400_000_000 / callsPerDay;
const hourMs = 3_600_000;
const dayMs = 86_400_000;

/** The bench's clock, fixed so a seeded store is reused run after run: 45 minutes into an hour. */
export const now = new Date("2026-11-20T11:45:00.000Z");
export const dayStart = new Date(now.getTime() - dayMs);

export const orgId = "org_bench";
export const projectId = "proj_bench";
export const workloadCount = 40;
/** Eleven served models; model k is served under provider label `labels[k % 3]`. */
export const modelCount = 11;
export const labels = ["provider_a", "provider_b", "managed"] as const;
export const keyCount = 25;

/** As the raw fill names them: `wl_bench_` and `key_bench_` then the residue. */
export const workloadId = (w: number) => `wl_bench_${w}`;
export const keyId = (k: number) => `key_bench_${k}`;

/** A range of call numbers, every call in it stored or only its problem and refused calls. */
export interface CallSegment {
  from: number;
  to: number;
  problemsOnly: boolean;
}

const callAt = (ms: number) => Math.round(((ms - dayStart.getTime()) * 1000) / spacingMicros);
const floorHour = (ms: number) => Math.floor(ms / hourMs) * hourMs;

/** The edge hours of the 30-day, 7-day and 24-hour windows ending `now`, and the hour holding `now`. */
export const edgeHours = [30 * dayMs, 7 * dayMs, dayMs, 0].map(
  (span) => new Date(floorHour(now.getTime() - span)),
);

/**
 * The call numbers stored raw (negative before the day): every call of each edge hour (to `now`
 * in the last one) and the problem calls of the 24 hours in between.
 */
export function callSegments(): CallSegment[] {
  const whole = (hour: Date) => {
    const from = callAt(hour.getTime());
    return {
      from,
      to: Math.min(callAt(hour.getTime() + hourMs), callAt(now.getTime()) + 1) - 1,
      problemsOnly: false,
    };
  };
  const [monthEdge, weekEdge, dayEdge, lastHour] = edgeHours.map(whole) as [
    CallSegment,
    CallSegment,
    CallSegment,
    CallSegment,
  ];
  return [
    monthEdge,
    weekEdge,
    dayEdge,
    { from: dayEdge.to + 1, to: lastHour.from - 1, problemsOnly: true },
    lastHour,
  ];
}

/** The whole hours of the 30 days ending `now` (and the hour holding `now`), as rollups hold them. */
export const rollupHours = { first: new Date(floorHour(now.getTime() - 30 * dayMs)), count: 30 * 24 + 1 };

/**
 * The hours whose per-minute rollups the store holds: the 24 hours ending `now` (the edge hours'
 * from their calls, the others a copy of one of them). The 29 days before hold none: no report
 * reads them, and they would add at most one level to the table's btree.
 */
export const minuteRollupHours = { first: new Date(floorHour(now.getTime() - dayMs)), count: 25 };
