/**
 * The node's command line, one file per command under cmds/: `start` (a node from a config; without
 * one, the local devnet; the default command), `devnet` (a local network of several nodes), `sdp`
 * (declarations on a running node), `init` (a new node's config with fresh keys), `version`, and the
 * config-file commands the blockchain module also offers: `config …` (generate, update, migrate,
 * participation data, peer id), `keys …` (list, generate, add, remove; also `key`) and `auth …`
 * (credentials for the API's authentication: a bearer token, a password hash).
 */
import { Command } from 'commander';
import { addAuthCommand } from './cmds/auth.ts';
import { addConfigCommand } from './cmds/config.ts';
import { addDevnetCommand } from './cmds/devnet.ts';
import { addInitCommand } from './cmds/init.ts';
import { addKeysCommand } from './cmds/keys.ts';
import { addSdpCommand } from './cmds/sdp.ts';
import { addSnapshotCommand } from './cmds/snapshot.ts';
import { addStartCommand, banner } from './cmds/start.ts';
import { addVersionCommand } from './cmds/version.ts';

export { banner };

export function buildCli(): Command {
  const program = new Command();
  program.name('logos-node').description('A Logos blockchain node').showHelpAfterError();
  // Without a command, `start` runs; a word that names no command is an error, not an argument of start.
  program.hook('preSubcommand', (cmd, sub) => {
    const first = cmd.args[0];
    if (
      first !== undefined &&
      !first.startsWith('-') &&
      first !== sub.name() &&
      !sub.aliases().includes(first)
    ) {
      const names = cmd.commands.map((c) => c.name());
      cmd.error(`error: unknown command '${first}' (commands: ${names.join(', ')}, help)`, {
        code: 'commander.unknownCommand',
      });
    }
  });
  addStartCommand(program);
  addDevnetCommand(program);
  addSdpCommand(program);
  addInitCommand(program);
  addVersionCommand(program);
  addConfigCommand(program);
  addKeysCommand(program);
  addSnapshotCommand(program);
  addAuthCommand(program);
  return program;
}
