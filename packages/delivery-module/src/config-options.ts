/**
 * `getAvailableConfigs()` of the `delivery_module` (operator.md §4.2): the WakuNodeConf keys this node
 * reads, in liblogosdelivery's shape — pretty JSON `{"configOptions":[{"<field>":"<type>(<default>)",
 * "desc":"…"}]}` — listing only what `createNode` accepts (config.ts), with this node's defaults.
 */

const OPTIONS: readonly (readonly [field: string, type: string, def: string, desc: string])[] = [
  ['preset', 'string', '', 'Network preset: logos.test (cluster 2) or logos.dev (cluster 3), 8 autoshards'],
  ['clusterId', 'uint16', '0', 'Cluster id of the network'],
  ['numShardsInNetwork', 'uint16', '1', 'Number of autoshards of the cluster'],
  ['relay', 'bool', 'true', 'Enable Waku Relay (gossipsub /vac/waku/relay/2.0.0) on every shard'],
  ['logLevel', 'string', 'INFO', 'TRACE, DEBUG, INFO, NOTICE, WARN, ERROR or FATAL'],
  ['listenAddress', 'IpAddress', '0.0.0.0', 'IPv4 address the TCP and discv5 sockets bind'],
  ['tcpPort', 'Port', '60000', 'libp2p TCP port'],
  ['discv5UdpPort', 'Port', '9000', 'discv5 UDP port'],
  ['discv5Discovery', 'bool', 'false', 'Enable discv5 discovery (on with a preset)'],
  ['nat', 'string', 'any', 'any, none or extip:<IPv4>: the address announced in the ENR and multiaddrs'],
  ['extMultiaddrs', 'seq[string]', '[]', 'Extra multiaddrs to announce (ENR multiaddrs field)'],
  ['entryNodes', 'seq[string]', '[]', 'enr: records or multiaddrs with /p2p/ to bootstrap from'],
  [
    'nodekey',
    'string',
    '',
    'secp256k1 secret key (64 hex); a key kept in the module data folder when absent',
  ],
  ['maxConnections', 'int', '50', 'Maximum number of libp2p connections'],
];

export function availableConfigs(): string {
  const configOptions = OPTIONS.map(([field, type, def, desc]) => ({ [field]: `${type}(${def})`, desc }));
  return JSON.stringify({ configOptions }, null, 2);
}
