// The outputSchema every tool advertises, written once in its leanest valid form: tools/list repeats it in
// every tool, and clients put the list into the model's context. SDK clients validate structuredContent
// against it even when isError is true, so it admits both shapes (decisions.md): an object with `ok`, and
// either the success shape (RunResponse, which alone has `files`) or the Error body (which alone has
// `error`). Their typed fields are RunResponse and Error in OpenAPI (wire-schema.ts); mcp-view.test.ts
// checks that real answers of both kinds pass and that an object with neither shape does not.
export const OUTPUT_SCHEMA = Object.freeze({
  type: 'object',
  required: ['ok'],
  anyOf: [{ required: ['files'] }, { required: ['error'] }],
} as const);
