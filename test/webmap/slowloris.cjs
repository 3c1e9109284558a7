// test/webmap/slowloris.cjs - slow clients against slimetool map-server, on
// loopback only, for a bounded time (test/webmap.sh runs it).
//
//   node slowloris.cjs PORT SECONDS GROUP...
//   GROUP = NAME:COUNT:ADDRESS:NADDR:INTERVAL_MS
//
// A group holds COUNT connections to 127.0.0.1:PORT, bound to NADDR
// consecutive source addresses from ADDRESS (all in 127.0.0.0/8, which
// Linux routes to the loopback interface without any set-up), COUNT / NADDR
// each. Each sends a request line and then one header line every
// INTERVAL_MS, never ending its headers. A connection the server closes is
// opened again a second later, so that COUNT stay held until SECONDS have
// passed; then every socket is destroyed and the script exits.
//
// Prints "ready" once every connection of the first round has connected
// (or been closed at once), then at the end one line per group:
//   NAME connected=N held_at_2s=N closed_by_server=N first_close_ms=N
// held_at_2s: of the first round, the connections still open 2 s after
// "ready"; closed_by_server: closes the client did not ask for;
// first_close_ms: the shortest life of a connection the server closed
// after the first 2 s (how long the server let a slow request go on).
'use strict';
const net = require('net');

const [port, seconds, ...specs] = process.argv.slice(2);
if (!port || !seconds || specs.length === 0) {
  console.error('usage: node slowloris.cjs PORT SECONDS NAME:COUNT:ADDRESS:NADDR:INTERVAL_MS...');
  process.exit(2);
}
const end = Date.now() + 1000 * Number(seconds);
let stopping = false;
const sockets = new Set();

// The n-th address from a dotted 127.x.y.z one.
function addressAt(first, n) {
  const p = first.split('.').map(Number);
  if (p.length !== 4 || p[0] !== 127) throw new Error(`not a loopback address: ${first}`);
  const v = ((p[1] << 16) | (p[2] << 8) | p[3]) + n;
  return `127.${(v >> 16) & 255}.${(v >> 8) & 255}.${v & 255}`;
}

const groups = specs.map((spec) => {
  const [name, count, address, naddr, interval] = spec.split(':');
  return {
    name, count: Number(count), address, naddr: Number(naddr), interval: Number(interval),
    connected: 0, settled: 0, open: 0, firstOpen: 0, closedByServer: 0, heldAt2s: -1, firstCloseMs: -1,
  };
});

// Hold one connection of group g from its i-th client; first: of the first round.
function hold(g, i, first) {
  if (stopping || Date.now() >= end) return;
  const born = Date.now();
  const s = net.connect({ host: '127.0.0.1', port: Number(port), localAddress: addressAt(g.address, i % g.naddr) });
  let timer = null;
  let settled = false;
  const settle = () => { if (first && !settled) { settled = true; g.settled++; checkReady(); } };
  sockets.add(s);
  s.setNoDelay(true);
  s.on('connect', () => {
    g.connected++;
    g.open++;
    if (first) g.firstOpen++;
    s.write(`GET /static/map.js HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    let n = 0;
    timer = setInterval(() => s.write(`X-Slow-${n++}: ${'a'.repeat(8)}\r\n`), g.interval);
    settle();
  });
  s.on('data', () => {});  // the server may answer 408 or nothing: either way it ends
  s.on('error', () => {});
  s.on('close', () => {
    sockets.delete(s);
    if (timer) { clearInterval(timer); g.open--; if (first) g.firstOpen--; }
    settle();
    if (stopping) return;
    g.closedByServer++;
    const life = Date.now() - born;
    if (readyAt && born >= readyAt + 2000 && (g.firstCloseMs < 0 || life < g.firstCloseMs)) g.firstCloseMs = life;
    setTimeout(() => hold(g, i, false), 1000);
  });
}

let readyAt = 0;
function checkReady() {
  if (readyAt || !groups.every((g) => g.settled === g.count)) return;
  readyAt = Date.now();
  console.log('ready');
  setTimeout(() => { for (const g of groups) g.heldAt2s = g.firstOpen; }, 2000);
}

for (const g of groups) for (let i = 0; i < g.count; i++) hold(g, i, true);

setTimeout(() => {
  stopping = true;
  for (const s of sockets) s.destroy();
  for (const g of groups) {
    console.log(`${g.name} connected=${g.connected} held_at_2s=${g.heldAt2s} ` +
                `closed_by_server=${g.closedByServer} first_close_ms=${g.firstCloseMs}`);
  }
  process.exit(0);
}, Math.max(0, end - Date.now()));
