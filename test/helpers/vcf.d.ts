// `vcf` (dev dependency, compared with ical.js in test/formats/vcard-read.test.ts) ships no types.
declare module 'vcf' {
  const vCard: { parse(text: string): unknown[] };
  export default vCard;
}
