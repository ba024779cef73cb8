// Micro-benchmark: jsonwebtoken 9 verify() with the HS256 secret as a string vs as a KeyObject.
// With a string, every call first tries createPublicKey(secret), which throws, then createSecretKey.
// Run: node bench/jwt-verify.mjs
import { createSecretKey, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';

const secret = randomBytes(48).toString('base64url');
const key = createSecretKey(Buffer.from(secret));
const now = Math.floor(Date.now() / 1000);
const token = jwt.sign({ sub: 'u1', jti: 'j1', tv: 0, iat: now, exp: now + 3600, iss: 'stacks', aud: 'stacks' }, key, { algorithm: 'HS256' });
const options = { algorithms: ['HS256'], issuer: 'stacks', audience: 'stacks' };

function measure(label, secretOrKey, n = 4000) {
  for (let i = 0; i < 500; i++) jwt.verify(token, secretOrKey, options);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < n; i++) jwt.verify(token, secretOrKey, options);
  const used = process.cpuUsage(cpu);
  const wallUs = ((performance.now() - started) * 1000) / n;
  return { label, wallUs, cpuUs: (used.user + used.system) / n };
}

console.log('round | secret | wall µs/verify | CPU µs/verify');
for (let round = 1; round <= 3; round++) {
  for (const r of [measure('string', secret), measure('KeyObject', key)]) {
    console.log(`${round} | ${r.label} | ${r.wallUs.toFixed(1)} | ${r.cpuUs.toFixed(1)}`);
  }
}
