#!/usr/bin/env node
// Exits 0 if a Redis server answers PING at the given URL (redis:// or rediss://), else 1.
// Dependency-free on purpose: it runs before `npm ci` may have happened.
'use strict';
const net = require('node:net');
const tls = require('node:tls');

const url = new URL(process.argv[2] || 'redis://127.0.0.1:6379');
const secure = url.protocol === 'rediss:';
const host = url.hostname || '127.0.0.1';
const port = Number(url.port || 6379);
const user = decodeURIComponent(url.username || '');
const password = decodeURIComponent(url.password || '');

const command = (...args) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
const socket = secure ? tls.connect({ host, port, servername: host }) : net.connect({ host, port });
const timer = setTimeout(() => finish(1), 1500);
let buffer = '';

function finish(code) {
  clearTimeout(timer);
  socket.destroy();
  process.exit(code);
}

socket.once(secure ? 'secureConnect' : 'connect', () => {
  const auth = password ? (user ? command('AUTH', user, password) : command('AUTH', password)) : '';
  socket.write(auth + command('PING'));
});
socket.on('data', (chunk) => {
  buffer += chunk.toString('utf8');
  if (buffer.includes('+PONG')) finish(0);
  if (buffer.startsWith('-')) finish(1);
});
socket.on('error', () => finish(1));
