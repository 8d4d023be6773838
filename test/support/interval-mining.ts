import { rpcRequest } from "../../deploy/rpc.js";

/**
 * Switches an anvil started on automine to mining a block every `blockTime` seconds
 * (`evm_setIntervalMining`: the mode `anvil --block-time` starts in). Test harnesses deploy the
 * contracts on automine first, since on 1 s blocks each deploy transaction waits for a block.
 *
 * @example
 * const anvil = await startAnvil({ port, blockTime: 0 });
 * await deployAll({ rpcUrl: anvil.rpcUrl, ... });
 * await startIntervalMining(anvil.rpcUrl, 1);
 */
export async function startIntervalMining(rpcUrl: string, blockTime: number): Promise<void> {
  await rpcRequest(rpcUrl, "evm_setIntervalMining", [blockTime]);
}
