// The equity calculator's worker: computes off the page's thread so the page never freezes.
// It runs the `equity-worker` module (web/equity-worker), fetched the first time someone
// opens the calculator.
import init, { equity_text } from '/equity_worker.js';

const ready = init({ module_or_path: '/equity_worker_bg.wasm' });

self.onmessage = async (e) => {
  await ready;
  const start = performance.now();
  const reply = equity_text(e.data);
  const micros = Math.round((performance.now() - start) * 1000);
  self.postMessage(micros + '\n' + reply);
};
