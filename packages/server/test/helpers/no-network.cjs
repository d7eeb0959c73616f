// Preloaded (node --require) into a child process, and inherited by its worker threads: any outbound connection or
// fetch throws, so code run under it proves it needs no network.
const net = require('node:net');
net.Socket.prototype.connect = function connect(options) {
  throw new Error(`network used: ${JSON.stringify(options)}`);
};
globalThis.fetch = () => {
  throw new Error('fetch used');
};
