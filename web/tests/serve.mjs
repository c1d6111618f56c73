// Serves web/dist and forwards /api, /healthz and /ws to a running `scoop serve`, all on one
// origin. Used by the browser test only while the server cannot serve the web client itself
// (`--web-dir` is accepted but not yet routed); a static server plus a same-origin proxy is
// exactly what the page needs.
//
// usage: node web/tests/serve.mjs DIST LISTEN_PORT BACKEND_PORT
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';

const [distArg, port, backend] = process.argv.slice(2);
const dist = path.resolve(distArg);
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
const proxied = (url) => url.startsWith('/api/') || url === '/healthz' || url.startsWith('/ws');

const server = http.createServer((req, res) => {
  if (proxied(req.url)) {
    const up = http.request({ host: '127.0.0.1', port: backend, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => { res.writeHead(502); res.end(); });
    req.pipe(up);
    return;
  }
  const clean = path.normalize(decodeURIComponent(req.url.split('?')[0])).replace(/^(\.\.[/\\])+/, '');
  let file = path.join(dist, clean);
  if (!file.startsWith(dist) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    file = path.join(dist, 'index.html');
  }
  res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
});

// WebSocket upgrades are passed through byte for byte, Origin header included.
server.on('upgrade', (req, socket, head) => {
  const up = net.connect(Number(backend), '127.0.0.1', () => {
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    up.write(lines.join('\r\n') + '\r\n\r\n');
    if (head.length) up.write(head);
    up.pipe(socket);
    socket.pipe(up);
  });
  const end = () => { up.destroy(); socket.destroy(); };
  up.on('error', end);
  socket.on('error', end);
});

server.listen(Number(port), '127.0.0.1', () => console.log(`serving ${dist} on ${port}, backend ${backend}`));
