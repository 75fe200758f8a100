import { Command } from 'commander';

export async function run(argv: string[]): Promise<number> {
  const program = new Command('postureops');
  program.description('Security Posture Service configuration as code');
  await program.parseAsync(argv);
  return 0;
}
