// Excel date serials ⇄ UTC Date objects, computed in UTC only so that the process time zone never matters.
//
// Rules:
// - 1900 system: serial 1 is 1900-01-01. Excel counts a 29 February 1900 that never existed (serial 60), so
//   serials from 61 on are days since 1899-12-30 and serials 1–59 are days since 1899-12-31; 60 reads as
//   1900-02-28.
// - 1904 system: serial 0 is 1904-01-01.
// - A time of day without a date (serial in [0, 1), e.g. format `hh:mm`) is a Date on 1899-12-30, Excel's day 0;
//   writers show such a Date as a time only.
// - Times are rounded to the millisecond, which removes the binary noise of fractions of a day.

const DAY_MS = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);
const FIRST_OF_1900 = Date.UTC(1900, 0, 1);
const MARCH_1900 = Date.UTC(1900, 2, 1);

/** The Date of an Excel serial; `hasDatePart` false lets a 1904 workbook's [0, 1) serial be a time only. */
export function serialToDate(serial: number, date1904 = false, hasDatePart = true): Date {
  const ms = Math.round(serial * DAY_MS);
  if (serial < 1 && (!date1904 || !hasDatePart)) return new Date(EPOCH_1900 + ms);
  if (date1904) return new Date(EPOCH_1904 + ms);
  if (serial < 60) return new Date(EPOCH_1900 + DAY_MS + ms);
  return new Date(EPOCH_1900 + ms);
}

/** The 1900-system serial of a Date, or null when Excel cannot hold it as a date (before 1900, or invalid). */
export function dateToSerial(d: Date): number | null {
  const ms = d.getTime();
  if (!Number.isFinite(ms) || ms < EPOCH_1900) return null;
  if (ms < EPOCH_1900 + DAY_MS) return (ms - EPOCH_1900) / DAY_MS;
  if (ms < FIRST_OF_1900) return null;
  if (ms < MARCH_1900) return (ms - EPOCH_1900 - DAY_MS) / DAY_MS;
  return (ms - EPOCH_1900) / DAY_MS;
}

/** A Date on Excel's day 0 (1899-12-30) stands for a time of day without a date. */
export function isTimeOnly(d: Date): boolean {
  const ms = d.getTime();
  return ms >= EPOCH_1900 && ms < EPOCH_1900 + DAY_MS;
}

export function hasTime(d: Date): boolean {
  return d.getTime() % DAY_MS !== 0;
}

/** `hh:mm:ss` (with `.sss` when there are milliseconds) of a Date's time of day. */
export function isoTime(d: Date): string {
  const iso = d.toISOString();
  return d.getUTCMilliseconds() === 0 ? iso.slice(11, 19) : iso.slice(11, 23);
}

// Strict OOXML's date cells (`t="d"`) hold ISO 8601 text: a date, a date-time or a time, read as written (the zone
// is left out, as Excel and openpyxl leave it: a sheet has no time zone), or a duration (`PT0H11M0S`), which is
// a number of days as Excel stores it.
const ISO_DATE = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?)?(?:Z|[+-]\d\d:?\d\d)?$/;
const ISO_TIME = /^T?(\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?$/;
const ISO_DURATION = /^(-)?P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/**
 * An ISO 8601 date or time as a Date in UTC (a time alone on 1899-12-30, as a time-of-day serial reads), a
 * duration as its number of days, or null when the text is neither.
 */
export function isoCellValue(text: string): Date | number | null {
  let m = ISO_DATE.exec(text);
  if (m) {
    const ms = m[7] ? Math.round(parseFloat(m[7]) * 1000) : 0;
    const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], m[4] ? +m[4] : 0, m[5] ? +m[5] : 0, m[6] ? +m[6] : 0, ms));
    // Date.UTC maps years 0–99 to 1900–1999.
    d.setUTCFullYear(+m[1]);
    return d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3] ? d : null;
  }
  m = ISO_TIME.exec(text);
  if (m) return new Date(EPOCH_1900 + ((+m[1] * 60 + +m[2]) * 60 + (m[3] ? +m[3] : 0)) * 1000 + (m[4] ? Math.round(parseFloat(m[4]) * 1000) : 0));
  m = ISO_DURATION.exec(text);
  if (m && text !== 'P' && !text.endsWith('T')) {
    const n = (s: string | undefined) => (s ? parseFloat(s) : 0);
    const days = n(m[2]) * 7 + n(m[3]) + n(m[4]) / 24 + n(m[5]) / 1440 + n(m[6]) / 86_400;
    return m[1] ? -days : days;
  }
  return null;
}
