// The baseline of bench/http.bench.ts: a bare Fastify server with the same liveness route.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/health/live', async () => ({ status: 'ok' }));
void app.listen({ port: Number(process.argv[2]), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
