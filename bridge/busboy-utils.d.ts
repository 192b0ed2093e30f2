// busboy 1.6.0 has no `exports` map and no types for its helpers; multipart-scan.ts reuses them so that part
// headers are read exactly as busboy reads them.
declare module 'busboy/lib/utils.js' {
  type Decoder = (data: Buffer | string, hint: number) => string | undefined;
  interface ContentType {
    type: string;
    subtype: string;
    params: Record<string, string>;
  }
  interface Disposition {
    type: string;
    params: Record<string, string>;
  }
  const utils: {
    basename(path: string): string;
    convertToUTF8(data: Buffer | string, charset: string, hint: number): string | undefined;
    getDecoder(charset: string): Decoder;
    parseContentType(str: string): ContentType | undefined;
    parseDisposition(str: string, defDecoder: Decoder): Disposition | undefined;
  };
  export default utils;
}
