// Process entry. The service loads only once the process has the server's V8 flags: relaunch.ts replaces a
// process started without them, and loading the service first would cost each start a second of loading twice.
import './relaunch.ts';

await import('./serve.ts');
