import { Client } from 'pg';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

describe('test infrastructure', () => {
  it('provides a real PostgreSQL', async () => {
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    const res = await client.query('select 1 + 1 as two');
    expect(res.rows[0].two).toBe(2);
    await client.end();
  });

  it('provides a real NATS with JetStream', async () => {
    const nc = await connect({ servers: process.env.TEST_NATS_URL });
    const jsm = await jetstreamManager(nc);
    const info = await jsm.getAccountInfo();
    expect(info.limits).toBeDefined();
    await nc.close();
  });
});
