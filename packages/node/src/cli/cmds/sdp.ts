/** `logos-node sdp post-blend-declaration`: Service Declaration Protocol operations on a running node. */
import type { Command } from 'commander';
import { postBlendDeclaration } from '../../node/blend-declaration.ts';

export function addSdpCommand(program: Command): void {
  const sdp = program
    .command('sdp')
    .description('Service Declaration Protocol (SDP) operations on a running node');
  sdp
    .command('post-blend-declaration')
    .description(
      'declare a node as a Blend core node: checks its funding key and the note through its API, then POST /blend/join',
    )
    .requiredOption('--user-config-path <path>', "the node's user_config.yaml")
    .requiredOption(
      '--blend-addr <multiaddr>',
      'the Blend address to declare (e.g. /ip4/1.2.3.4/udp/3400/quic-v1)',
    )
    .requiredOption('--locked-note-id <hex>', 'the note of the Blend Zk key to lock')
    .option('--node-address <url>', "the node's API", 'http://localhost:8080')
    .option('--username <name>', 'basic auth user for the API')
    .option('--password <password>', 'basic auth password for the API')
    .action(
      async (o: {
        userConfigPath: string;
        blendAddr: string;
        lockedNoteId: string;
        nodeAddress: string;
        username?: string;
        password?: string;
      }) => {
        const id = await postBlendDeclaration({
          userConfigPath: o.userConfigPath,
          blendAddr: o.blendAddr,
          lockedNoteId: o.lockedNoteId,
          nodeAddress: o.nodeAddress,
          ...(o.username !== undefined ? { username: o.username } : {}),
          ...(o.password !== undefined ? { password: o.password } : {}),
        });
        console.log(`Declaration posted successfully: ${id}`);
      },
    );
}
