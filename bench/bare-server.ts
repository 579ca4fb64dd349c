// The baseline: a bare node:http server answering a fixed response (the bytes our service answers) after
// reading the request body, one process, no framework.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const [, , port, bodyPath, contentType] = process.argv;
const body = readFileSync(bodyPath ?? '');
createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': contentType ?? 'application/json', 'content-length': body.length });
    res.end(body);
  });
}).listen(Number(port), '127.0.0.1', () => {
  process.stdout.write('ready\n');
});
