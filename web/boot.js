// Starts the WebAssembly client. A file, not an inline script, so the content security
// policy can forbid inline scripts.
import init from '/web.js';
// The equity calculator's worker script (the build gives it a content-hashed name).
globalThis.scoopEquityWorker = '/equity-worker.js';
init({ module_or_path: '/web_bg.wasm' });
