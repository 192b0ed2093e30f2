// The outputSchema every tool advertises. SDK clients validate structuredContent against it even when
// isError is true, so it admits both the success shape and the Error body (decisions.md).
import { ERROR_BODY_SCHEMA, MESSAGE_SCHEMA, PREVIEW_SCHEMA, resultFileSchema, runResponseSchema } from '../tools/core/wire-schema.ts';

const SUCCESS_SCHEMA = runResponseSchema({ file: resultFileSchema('uri'), preview: PREVIEW_SCHEMA, message: MESSAGE_SCHEMA });

export const OUTPUT_SCHEMA = { type: 'object', required: ['ok'], anyOf: [SUCCESS_SCHEMA, ERROR_BODY_SCHEMA] } as const;
