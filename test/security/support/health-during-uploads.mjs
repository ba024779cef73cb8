// Sends every upload on its own connection; once the first upload is answered (the server is busy
// finishing the rest), asks GET /healthz on another one. Prints, as JSON, the answers in the order their
// status lines arrived: { name, status, retryAfter, id }. Runs in its own process, as real clients do.
// Usage: node health-during-uploads.mjs <port>, with stdin { authorization, type, bodies: [base64…] }
import { request } from 'node:http';

const port = Number(process.argv[2]);
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { authorization, type, bodies } = JSON.parse(input);

const answered = [];
const send = (name, options, body) => new Promise((resolve) => {
  const req = request({ host: '127.0.0.1', port, agent: false, ...options }, (res) => {
    const entry = { name, status: res.statusCode, retryAfter: res.headers['retry-after'] ?? null, id: null };
    answered.push(entry);
    if (name.startsWith('upload') && answered.length === 1) sendHealth();
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c) => { text += c; });
    res.on('end', () => {
      try { entry.id = JSON.parse(text).id ?? null; } catch { /* not JSON */ }
      resolve();
    });
  });
  req.on('error', () => { answered.push({ name, status: -1, retryAfter: null, id: null }); resolve(); });
  req.end(body);
});

let health;
const sendHealth = () => { health = send('healthz', { method: 'GET', path: '/healthz' }); };
const uploads = bodies.map((b64, i) => {
  const body = Buffer.from(b64, 'base64');
  return send(`upload${i}`, { method: 'POST', path: '/api/books', headers: { authorization, 'content-type': type, 'content-length': body.length } }, body);
});
await Promise.all(uploads);
await health;
process.stdout.write(JSON.stringify(answered));
