/**
 * The connection id of the connection the CONNECTOR_* variables (or the built-in simulator)
 * define in a local run; connections added at run time have their own.
 */
export const LOCAL_CONNECTION_ID = 'local';
