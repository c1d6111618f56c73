// Starts the WebAssembly client. A file, not an inline script, so the content security
// policy can forbid inline scripts.
import init from '/web.js';
init({ module_or_path: '/web_bg.wasm' });
