// Preloaded into a child process (`node --import ./test/support/no-network.mjs ...`): every attempt to
// open a network connection beyond this machine (TCP or TLS to anything but loopback; Unix sockets
// stay allowed) is written to stderr as `NETWORK ATTEMPT: host:port` and fails, so a test can prove
// that a tool never phones home.
import net from 'node:net';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const options = typeof args[0] === 'object' && args[0] !== null ? (Array.isArray(args[0]) ? args[0][0] : args[0]) : { port: args[0], host: args[1] };
  if (typeof options === 'string' || options?.path || LOOPBACK.has(options?.host ?? 'localhost')) return connect.apply(this, args);
  process.stderr.write(`NETWORK ATTEMPT: ${options?.host}:${options?.port}\n`);
  process.nextTick(() => this.destroy(Object.assign(new Error('network access is disabled here'), { code: 'ECONNREFUSED' })));
  return this;
};
