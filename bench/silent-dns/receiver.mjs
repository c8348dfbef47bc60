// A receiver for run.sh on 127.0.0.1:<port>: answers 204 and closes the connection (so each
// delivery looks its host up again), and prints per request the time and the milliseconds since
// the event's detection (its `time`).
import { createServer } from 'node:http';

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const detected = Date.parse(JSON.parse(Buffer.concat(chunks).toString()).time);
    console.log(Date.now(), Date.now() - detected);
    response.writeHead(204, { connection: 'close' });
    response.end();
  });
}).listen(Number(process.argv[2]), '127.0.0.1');
