// Opens one connection per request to 127.0.0.1:<port>, waits until all are connected, writes every
// request in one turn, and prints the order in which the answers' status lines arrive, as JSON.
// Usage: node burst-client.mjs <port> <requests as a JSON array of { name, raw }>
import { connect } from 'node:net';
import { once } from 'node:events';

const [port, list] = [Number(process.argv[2]), JSON.parse(process.argv[3])];
const sockets = await Promise.all(list.map(async () => {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}));
// Gives the server a moment to accept them all, so the writes tend to land in one batch. The outcome
// does not hang on it: with the lane, a request read later is still answered within a few loop turns.
await new Promise((resolve) => setTimeout(resolve, 100));
const answered = [];
const done = sockets.map((socket, i) => once(socket, 'data').then(([chunk]) => answered.push(`${list[i].name} ${String(chunk).split(' ')[1]}`)));
sockets.forEach((socket, i) => socket.write(list[i].raw));
await Promise.all(done);
sockets.forEach((socket) => socket.destroy());
process.stdout.write(JSON.stringify(answered));
