// Drives the real @sentry/node SDK, configured only with the DSN in $SENTRY_DSN: two users hit the same exception,
// one message, one session. Prints one JSON line per envelope the SDK sent: the status the server answered and the
// item types in it (the transport is the SDK's own, observed, not replaced).
import * as Sentry from '@sentry/node';

const sent = [];
Sentry.init({
  dsn: process.env.SENTRY_DSN,
  release: 'shop@1.2.3',
  environment: 'test',
  tracesSampleRate: 0,
  defaultIntegrations: false,
  transport: (options) => {
    const transport = Sentry.makeNodeTransport(options);
    return {
      ...transport,
      send: async (envelope) => {
        const response = await transport.send(envelope);
        sent.push({ status: response.statusCode ?? null, items: envelope[1].map((item) => item[0].type) });
        return response;
      },
    };
  },
});

function checkout(cart) {
  return cart.items.length;
}

for (const id of ['node-user-1', 'node-user-2']) {
  Sentry.setUser({ id });
  try {
    checkout({});
  } catch (error) {
    Sentry.captureException(error);
  }
}
Sentry.setUser({ username: 'node-messenger' });
Sentry.captureMessage('node: payment provider slow', 'warning');
Sentry.startSession();
Sentry.endSession();
await Sentry.flush(10_000);
for (const line of sent) console.log(JSON.stringify(line));
