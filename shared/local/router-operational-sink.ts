/**
 * Operational events of `npm start` go through the local event router, as the Lambda
 * dispatcher sends them to the dispatch queue and the bus: one sink for both.
 */
export { PublisherOperationalSink as RouterOperationalSink } from '../publish/publisher-operational-sink.ts';
