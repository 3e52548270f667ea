/**
 * `timestamp` (TimestampDef over wikimedia/timestamp's ConvertibleTimestamp): every input form
 * ConvertibleTimestamp recognizes, tried in its order, read with the overflow semantics of PHP's
 * `DateTime::createFromFormat()` (31 February is 3 March), normalized to an ISO 8601 UTC string.
 */
import type { TypeDef } from '../types.js';

function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

/** Years MediaWiki can store (TS_MW is exactly 14 digits): 0000-01-01 up to, not including, 10000-01-01. */
const YEAR0_MS = utcMs(0, 1, 1, 0, 0, 0);
const YEAR10000_MS = utcMs(10000, 1, 1, 0, 0, 0);

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const WEEKDAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

/** A day name as timelib reads it (`Sat`, `Saturday`, `Saturdays`), or undefined. */
function weekday(name: string): number | undefined {
  const lc = name.toLowerCase();
  for (let i = 0; i < 7; i++) {
    if (lc === WEEKDAYS[i] || lc === WEEKDAY_NAMES[i] || lc === `${WEEKDAY_NAMES[i]}s`) return i;
  }
  return undefined;
}

/** Time zone abbreviations PHP knows, in minutes east of UTC (a well-known subset). */
const ZONES: Readonly<Record<string, number>> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  WET: 0,
  WEST: 60,
  BST: 60,
  CET: 60,
  CEST: 120,
  MET: 60,
  MEST: 120,
  EET: 120,
  EEST: 180,
  MSK: 180,
  JST: 540,
  KST: 540,
  HST: -600,
  AKST: -540,
  AKDT: -480,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
};

/** Offset in minutes for `Z`, `±hh`, `±hhmm`, `±hh:mm`, a known abbreviation or a military letter. */
function zoneOffset(zone: string): number | undefined {
  const m = /^([+-])(\d\d)(?::?(\d\d))?$/.exec(zone);
  if (m) return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
  const upper = zone.toUpperCase();
  if (upper in ZONES) return ZONES[upper];
  if (/^[A-IK-Z]$/.test(upper)) {
    const c = upper.charCodeAt(0);
    if (upper === 'Z') return 0;
    if (c <= 73) return (c - 64) * 60; // A..I = +1..+9
    if (c <= 77) return (c - 65) * 60; // K..M = +10..+12
    return -(c - 77) * 60; // N..Y = -1..-12
  }
  return undefined;
}

/** Parsed fields, as createFromFormat would combine them. */
interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Fraction of a second as written (up to 6 digits), e.g. `999` = 0.999 s. */
  fraction?: string | undefined;
  /** Minutes east of UTC; UTC when absent. */
  offset?: number | undefined;
  /** A textual day of week: moves the date forward to that day unless it already is (timelib's relative weekday). */
  weekday?: number | undefined;
}

function fractionMs(fraction: string | undefined): number {
  if (!fraction) return 0;
  return Math.floor(Number(fraction.padEnd(6, '0')) / 1000);
}

function fromFields(f: Fields): number {
  let ms = utcMs(f.year, f.month, f.day, f.hour, f.minute, f.second);
  if (f.weekday !== undefined) {
    const current = new Date(ms).getUTCDay();
    ms += ((f.weekday - current + 7) % 7) * 86_400_000;
  }
  return ms - (f.offset ?? 0) * 60_000 + fractionMs(f.fraction);
}

const n = Number;

type Reader = (m: RegExpExecArray) => number | undefined;

/** ConvertibleTimestamp's input formats, in its order. `\n?$` stands for PCRE's `$` without the D modifier. */
const FORMATS: readonly (readonly [RegExp, Reader])[] = [
  // TS_MW
  [/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, (m) => fromFields(ymdhis(m, 1))],
  // TS_ISO_8601 (also TS_DB): 'T' or a space, optional fraction and zone
  [
    /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,6}))?(Z|[+-]\d{2}(?::?\d{2})?)?\n?$/,
    (m) => withZone(ymdhis(m, 1, m[7]), m[8]),
  ],
  // TS_ISO_8601_BASIC
  [
    /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(?:[.,](\d{1,6}))?(Z|[+-]\d{2}(?::?\d{2})?)?\n?$/,
    (m) => withZone(ymdhis(m, 1, m[7]), m[8]),
  ],
  // TS_UNIX
  [/^(-?\d{1,13})$/, (m) => unixMs(m[1]!, undefined)],
  // TS_UNIX_MICRO
  [/^(-?\d{1,13})\.(\d{1,6})$/, (m) => unixMs(m[1]!, m[2])],
  // TS_ORACLE: dd-mm-yyyy hh:mm:ss.uuuuuu
  [
    /^(\d{2})-(\d{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2})\.(\d{6})\n?$/,
    (m) =>
      fromFields({
        year: n(m[3]),
        month: n(m[2]),
        day: n(m[1]),
        hour: n(m[4]),
        minute: n(m[5]),
        second: n(m[6]),
        fraction: m[7],
      }),
  ],
  // TS_POSTGRES: a space may stand for '+' before the zone hours
  [
    /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+\- ]\d\d)\n?$/,
    (m) => withZone(ymdhis(m, 1, m[7]), m[8]!.replace(' ', '+')),
  ],
  // old TS_POSTGRES
  [/^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))? GMT\n?$/, (m) => fromFields(ymdhis(m, 1, m[7]))],
  // TS_EXIF
  [/^(\d{4}):(\d\d):(\d\d) (\d\d):(\d\d):(\d\d)$/, (m) => fromFields(ymdhis(m, 1))],
  // TS_RFC2822, obsolete syntax included; anything after a ';' is ignored
  [
    /^[ \t\r\n]*(?:([A-Z][a-z]{2}),[ \t\r\n]*)?(\d\d?)[ \t\r\n]+([A-Z][a-z]{2})[ \t\r\n]+(\d{2,})[ \t\r\n]+(\d\d)[ \t\r\n]*:[ \t\r\n]*(\d\d)[ \t\r\n]*:[ \t\r\n]*(\d\d)(?:[ \t\r\n]+([+-]\d{4}|UT|GMT|[ECMP][SD]T|[A-IK-Za-ik-z]))?(?:[ \t\r\n]*;|\n?$)/,
    (m) => {
      let year = n(m[4]);
      if (m[4]!.length > 4) return undefined; // createFromFormat's 'Y' reads at most 4 digits
      if (year < 1000) year += year < 50 ? 2000 : 1900;
      const zone = m[8] === undefined ? undefined : m[8].length === 1 ? '+0000' : m[8];
      return named(m[1], m[2]!, m[3]!, year, m[5]!, m[6]!, m[7]!, zone);
    },
  ],
  // TS_RFC850: Sunday, 06-Nov-94 08:49:37 GMT
  [
    /^([A-Z][a-z]{5,8}), (\d\d)-([A-Z][a-z]{2})-(\d{2}) (\d\d):(\d\d):(\d\d)(?: ([+-]\d{2}(?::?\d{2})?|[A-Z]{1,5}))?\n?$/,
    (m) => {
      const yy = n(m[4]);
      return named(m[1], m[2]!, m[3]!, yy < 70 ? 2000 + yy : 1900 + yy, m[5]!, m[6]!, m[7]!, m[8]);
    },
  ],
  // asctime: Sun Nov  6 08:49:37 1994
  [
    /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})[ \t\n\v\f\r]*$/,
    (m) => named(m[1], m[3]!, m[2]!, n(m[7]), m[4]!, m[5]!, m[6]!, undefined),
  ],
];

function ymdhis(m: RegExpExecArray, at: number, fraction?: string): Fields {
  return {
    year: n(m[at]),
    month: n(m[at + 1]),
    day: n(m[at + 2]),
    hour: n(m[at + 3]),
    minute: n(m[at + 4]),
    second: n(m[at + 5]),
    fraction,
  };
}

function withZone(f: Fields, zone: string | undefined): number | undefined {
  if (zone === undefined) return fromFields(f);
  const offset = zoneOffset(zone);
  return offset === undefined ? undefined : fromFields({ ...f, offset });
}

/** A form with a month name, an optional day name and an optional zone. */
function named(
  dayName: string | undefined,
  day: string,
  monthName: string,
  year: number,
  hour: string,
  minute: string,
  second: string,
  zone: string | undefined,
): number | undefined {
  const month = MONTHS[monthName.toLowerCase()];
  if (month === undefined) return undefined;
  let wd: number | undefined;
  if (dayName !== undefined) {
    wd = weekday(dayName);
    if (wd === undefined) return undefined;
  }
  const f: Fields = { year, month, day: n(day), hour: n(hour), minute: n(minute), second: n(second), weekday: wd };
  return withZone(f, zone);
}

/** Seconds since the epoch, with an optional decimal fraction, as a decimal number (`-1.2` is 1.2 s before). */
function unixMs(seconds: string, fraction: string | undefined): number | undefined {
  const negative = seconds.startsWith('-');
  const whole = Number(negative ? seconds.slice(1) : seconds);
  // Far outside the years 0000-9999: reject before the arithmetic loses precision.
  if (whole > 400_000_000_000) return undefined;
  const micro = fraction ? Number(fraction.padEnd(6, '0')) : 0;
  if (!negative) return whole * 1000 + Math.floor(micro / 1000);
  return -(whole * 1000) - Math.ceil(micro / 1000);
}

/**
 * Parse a timestamp in any form ConvertibleTimestamp accepts: TS_MW (`20180203040506`), ISO 8601
 * basic or extended with optional fraction and zone, seconds since the epoch (optionally negative
 * and fractional), TS_DB / TS_POSTGRES / TS_ORACLE / TS_EXIF, RFC 2822, RFC 850 and asctime.
 * Returns ms since the epoch, or `undefined` if the value is not a timestamp or falls outside the
 * years 0000-9999 (which MediaWiki's 14-digit form cannot hold). `''`, `'0'` and `'now'` are not
 * handled here: they mean "now" to TimestampDef.
 */
export function parseTimestamp(value: string): number | undefined {
  for (const [re, read] of FORMATS) {
    const m = re.exec(value);
    if (!m) continue;
    const ms = read(m);
    if (ms === undefined || !Number.isFinite(ms) || ms < YEAR0_MS || ms >= YEAR10000_MS) return undefined;
    return ms;
  }
  return undefined;
}

const pad = (v: number, width: number): string => String(v).padStart(width, '0');

/** `2018-02-03T04:05:06Z`, with `.mmm` only when the milliseconds are not zero. */
export function formatIsoTimestamp(ms: number): string {
  const d = new Date(ms);
  const base =
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  const millis = d.getUTCMilliseconds();
  return millis ? `${base}.${pad(millis, 3)}Z` : `${base}Z`;
}

/** MediaWiki's 14-digit form (`TS_MW`, `20180203040506`): of ms since the epoch, or of any timestamp string. */
export function toMwTimestamp(timestamp: number | string): string {
  const ms = typeof timestamp === 'number' ? timestamp : parseTimestamp(timestamp);
  if (ms === undefined || !Number.isFinite(ms) || ms < YEAR0_MS || ms >= YEAR10000_MS) {
    throw new RangeError(`Not a timestamp MediaWiki can represent: ${String(timestamp)}`);
  }
  const d = new Date(ms);
  return (
    pad(d.getUTCFullYear(), 4) +
    pad(d.getUTCMonth() + 1, 2) +
    pad(d.getUTCDate(), 2) +
    pad(d.getUTCHours(), 2) +
    pad(d.getUTCMinutes(), 2) +
    pad(d.getUTCSeconds(), 2)
  );
}

export const timestampDef: TypeDef = {
  validate(value, _settings, ctx) {
    let raw = value;
    // Confusing synonyms for the current time that ConvertibleTimestamp accepts (PHP-falsy strings).
    if (raw === '' || raw === '0') {
      ctx.warn('unclearnowtimestamp');
      raw = 'now';
    }
    if (raw === 'now') return formatIsoTimestamp(Math.floor(ctx.now() / 1000) * 1000);
    const ms = parseTimestamp(raw);
    if (ms === undefined) return ctx.fail('badtimestamp', `Invalid value "${value}" for timestamp parameter "${ctx.param}".`);
    return formatIsoTimestamp(ms);
  },
};
