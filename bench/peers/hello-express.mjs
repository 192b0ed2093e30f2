// The bare Express app of the small-file load: "hello world" on GET /, nothing else. The service's
// requests per second are compared with this app's, measured by the same load generator in the same run.
import express from 'express';

const app = express();
app.get('/', (_req, res) => res.send('hello world'));
app.get('/health', (_req, res) => res.send('ok'));
app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
