// Baseline: a bare node:http server. GET /hello -> {"hello":"world"}. PORT from the environment.
import { createServer } from 'node:http';

const body = JSON.stringify({ hello: 'world' });
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/hello') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  res.writeHead(404).end();
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
