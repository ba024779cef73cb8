// A slow or greedy HTTP client, run as its own process so the server under test shares no event loop
// with it. Usage: node slow-client.mjs '<plan as JSON>'; prints one JSON line with what it saw.
// Plans (port, host; `from` binds a local address such as 127.0.0.2):
//   {"mode":"headers", ...}            sends half a request head, then nothing
//   {"mode":"stall", "head": "...", "first": "..."}   sends the head and the first body bytes, then nothing
//   {"mode":"steady", "head": "...", "body": "<base64>", "chunk": n, "everyMs": ms}   sends the body n bytes at a time
//   {"mode":"hold", "count": n, "head": "..."}   opens n connections that each send `head` and wait; prints
//                                               {"held": n} once all are open, then keeps them until killed
// Each mode but `hold` ends with {"cut": bool, "status": n | null, "body": "..."} once the server closes the
// connection, or {"cut": false} at `deadlineMs` (only a wrong server ever reaches it).
import { connect } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

const plan = JSON.parse(process.argv[2]);
const target = { port: plan.port, host: plan.host ?? '127.0.0.1', ...(plan.from ? { localAddress: plan.from } : {}) };

async function open() {
  const socket = connect(target);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  return socket;
}

/** What the server sent until it closed the connection; null at the deadline. */
function untilClosed(socket, deadlineMs) {
  const chunks = [];
  socket.on('data', (c) => chunks.push(c));
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), deadlineMs);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ status: status ? Number(status) : null, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

async function report(socket, deadlineMs) {
  const seen = await untilClosed(socket, deadlineMs);
  socket.destroy();
  process.stdout.write(JSON.stringify(seen ? { cut: true, ...seen } : { cut: false }));
}

switch (plan.mode) {
  case 'headers': {
    const socket = await open();
    socket.write('GET /healthz HTTP/1.1\r\nHost: slow\r\nX-Slow: ');
    await report(socket, plan.deadlineMs);
    break;
  }
  case 'stall': {
    const socket = await open();
    socket.write(plan.head);
    socket.write(plan.first);
    await report(socket, plan.deadlineMs);
    break;
  }
  case 'steady': {
    const socket = await open();
    const answer = report(socket, plan.deadlineMs);
    socket.write(plan.head);
    const body = Buffer.from(plan.body, 'base64');
    for (let at = 0; at < body.length && !socket.destroyed; at += plan.chunk) {
      socket.write(body.subarray(at, at + plan.chunk));
      await sleep(plan.everyMs);
    }
    await answer;
    break;
  }
  case 'hold': {
    const sockets = [];
    for (let i = 0; i < plan.count; i++) {
      const socket = await open();
      socket.write(plan.head);
      sockets.push(socket);
    }
    process.stdout.write(`${JSON.stringify({ held: sockets.length })}\n`);
    await new Promise(() => undefined);
    break;
  }
  default:
    throw new Error(`unknown mode ${plan.mode}`);
}
