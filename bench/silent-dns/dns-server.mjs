// A DNS server for run.sh on 127.0.0.1:53 (UDP): answers every A question with 127.0.0.1 (and
// AAAA with no record), except for the names listed in the file given as its argument, which it
// never answers: a name server that hangs.
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';

const silentFile = process.argv[2];
const socket = createSocket('udp4');
socket.on('message', (query, peer) => {
  let silent = [];
  try {
    silent = readFileSync(silentFile, 'utf8').split(/\s+/).filter(Boolean);
  } catch {}
  const labels = [];
  let at = 12;
  while (query[at] !== 0) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('latin1'));
    at += query[at] + 1;
  }
  if (silent.includes(labels.join('.').toLowerCase())) return;
  const isA = query.readUInt16BE(at + 1) === 1;
  const header = Buffer.from(query.subarray(0, 12));
  header.writeUInt16BE(0x8180, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(isA ? 1 : 0, 6);
  header.writeUInt32BE(0, 8);
  const answer = isA ? [Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 5, 0, 4, 127, 0, 0, 1])] : [];
  socket.send(
    Buffer.concat([header, query.subarray(12, at + 5), ...answer]),
    peer.port,
    peer.address,
  );
});
socket.bind(53, '127.0.0.1');
